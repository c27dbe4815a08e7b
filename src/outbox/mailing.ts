/** What one batch of a mailing job did: more batches left, the last one made, or held elsewhere. */
export type MailingBatch = 'more' | 'done' | 'held';

/**
 * Runs mailing jobs (a job: emails made in keyset batches, each batch one transaction that
 * queues its emails and moves the job's progress on), up to `budget` batches in all, in turns
 * across workspaces: each turn one batch of each workspace's current job (its oldest listed
 * one not done nor held by another processor), so that one big mailing does not take every
 * batch of a pass while other workspaces' mailings wait. Answers whether batches may still
 * wait (the budget ran out). Shared by the changelog's publish emails and the voter emails of
 * a status change.
 */
export async function runMailings<J extends { workspace_id: string }>(
  jobs: J[],
  budget: number,
  batch: (job: J) => Promise<MailingBatch>,
): Promise<boolean> {
  const queues = new Map<string, J[]>();
  for (const job of jobs) {
    const queue = queues.get(job.workspace_id);
    if (queue) queue.push(job);
    else queues.set(job.workspace_id, [job]);
  }
  let made = 0;
  while (queues.size > 0) {
    for (const [workspaceId, queue] of queues) {
      if (made >= budget) return true;
      made++;
      if ((await batch(queue[0])) !== 'more') queue.shift();
      if (queue.length === 0) queues.delete(workspaceId);
    }
  }
  return made >= budget;
}
