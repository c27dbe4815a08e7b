/**
 * Where a pass of the outbox looks for work: in every workspace ('all'), or in these workspaces
 * only. On one server every pass looks everywhere, in one statement. On Citus a look everywhere
 * reads every shard (32 by default), where one workspace's is a single-shard statement: a pass
 * woken for a workspace (a NOTIFY naming it, a send of it ending here) looks there, besides
 * where the last look found due work; the poll, the retry timer and a NOTIFY naming none look
 * everywhere.
 */
export type Look = 'all' | ReadonlySet<string>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The workspace a NOTIFY on the outbox's channel names (on Citus, the payload), if any. */
export const workspaceNamed = (payload: string | undefined): string | undefined => (payload && UUID.test(payload) ? payload : undefined);

/** Where the next pass is to look, gathered from the wakes since the last one. */
export class Wakes {
  private all = false;
  private workspaces = new Set<string>();

  /** A wake for one workspace, or (none named) for every one. */
  add(workspaceId?: string): void {
    if (workspaceId === undefined) this.all = true;
    else if (!this.all) this.workspaces.add(workspaceId);
  }

  addLook(look: Look): void {
    if (look === 'all') this.all = true;
    else for (const id of look) this.add(id);
  }

  /** Where to look, and none since. */
  take(): Look {
    const look: Look = this.all ? 'all' : this.workspaces;
    this.all = false;
    this.workspaces = new Set();
    return look;
  }
}

export const isEmptyLook = (look: Look): boolean => look !== 'all' && look.size === 0;
