import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { BoardsService } from '../../src/boards/boards.service';
import type { Plan } from '../../src/workspaces/plans';
import { WorkspacesService } from '../../src/workspaces/workspaces.service';

export const uniqueSlug = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface TestWorkspace {
  id: string;
  slug: string;
  key: string;
  keyId: string;
  member: { id: string; name: string; email: string };
  actor: { workspaceId: string; workspaceSlug: string; personId: string };
}

/** A workspace of its own for a test: a member, a key, and a public and a private board. */
export async function createWorkspace(
  app: INestApplicationContext,
  options: { plan?: Plan; boards?: boolean } = {},
): Promise<TestWorkspace> {
  const workspaces = app.get(WorkspacesService);
  const slug = uniqueSlug('ws');
  const workspace = await workspaces.create({ name: `Workspace ${slug}`, slug, plan: options.plan ?? 'pro' });
  const email = `owner@${slug}.example`;
  const member = await workspaces.addPerson(workspace.id, { kind: 'member', name: 'Olive Owner', email });
  const { id: keyId, key } = await app.get(ApiKeysService).create(slug, email);
  if (options.boards !== false) {
    const boards = app.get(BoardsService);
    await boards.create(slug, { slug: 'ideas', name: 'Ideas', description: 'Public ideas' });
    await boards.create(slug, { slug: 'secret', name: 'Secret', public: false });
  }
  return {
    id: workspace.id,
    slug,
    key,
    keyId,
    member: { id: member.id, name: member.name, email },
    actor: { workspaceId: workspace.id, workspaceSlug: slug, personId: member.id },
  };
}
