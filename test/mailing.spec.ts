import { MailingBatch, runMailings } from '../src/outbox/mailing';

/** Jobs of batches left per job: runs them and answers the order of the batches made. */
async function run(jobs: { workspace_id: string; id: string; left: number }[], budget: number) {
  const made: string[] = [];
  const more = await runMailings(jobs, budget, async (job): Promise<MailingBatch> => {
    made.push(job.id);
    job.left--;
    return job.left > 0 ? 'more' : 'done';
  });
  return { made, more };
}

describe('runMailings', () => {
  it('takes batches in turns across workspaces: one big mailing does not hold back the others', async () => {
    const { made, more } = await run(
      [
        { workspace_id: 'a', id: 'a1', left: 100 },
        { workspace_id: 'a', id: 'a2', left: 1 },
        { workspace_id: 'b', id: 'b1', left: 2 },
        { workspace_id: 'c', id: 'c1', left: 1 },
      ],
      7,
    );
    expect(made).toEqual(['a1', 'b1', 'c1', 'a1', 'b1', 'a1', 'a1']);
    expect(more).toBe(true);
  });

  it('moves to a workspace’s next job when one is done or held, and answers false when all are done within the budget', async () => {
    const jobs = [
      { workspace_id: 'a', id: 'a1', left: 1 },
      { workspace_id: 'a', id: 'a2', left: 2 },
    ];
    const made: string[] = [];
    const more = await runMailings(jobs, 10, async (job): Promise<MailingBatch> => {
      made.push(job.id);
      if (job.id === 'a1') return 'held';
      return --job.left > 0 ? 'more' : 'done';
    });
    expect(made).toEqual(['a1', 'a2', 'a2']);
    expect(more).toBe(false);
    expect((await run([{ workspace_id: 'a', id: 'a1', left: 2 }], 2)).more).toBe(true); // the budget ran out: more may wait
  });
});
