/** What one batch of a mailing job did: more batches left, the last one made, or held elsewhere. */
export type MailingBatch = 'more' | 'done' | 'held';

/**
 * Runs mailing jobs (a job: emails made in keyset batches, each batch one transaction that
 * queues its emails and moves the job's progress on): batch after batch of each job while
 * another processor does not hold it, up to `budget` batches in all. Answers whether batches
 * may still wait (the budget ran out). Shared by the changelog's publish emails and the
 * voter emails of a status change.
 */
export async function runMailings<J>(jobs: J[], budget: number, batch: (job: J) => Promise<MailingBatch>): Promise<boolean> {
  let made = 0;
  for (const job of jobs) {
    for (let more = true; more && made < budget; made++) {
      more = (await batch(job)) === 'more';
    }
    if (made >= budget) return true;
  }
  return false;
}
