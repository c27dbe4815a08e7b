import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { normalEmail } from '../../common/email-address';
import { SIGN_IN_LIFETIME_MS } from '../../notifications/sign-in-email';
import { hashSecret, newSecret } from '../shared/sessions.service';

/**
 * A one-time sign-in link to the dashboard for a member (the CLI's `member sign-in-link`), good
 * for 15 minutes; answers its token. A plain function: the CLI has the database, not the pages'
 * services.
 */
export async function createDashboardSignInLink(db: Pick<DataSource, 'query'>, workspaceId: string, email: string): Promise<string> {
  const id = randomUUID();
  const secret = newSecret();
  await db.query(
    `INSERT INTO dashboard_sign_ins (id, email, workspace_id, link_hash, handled_at, expires_at)
     VALUES ($1, $2, $3, $4, now(), now() + $5 * interval '1 millisecond')`,
    [id, normalEmail(email) ?? email, workspaceId, hashSecret(secret), SIGN_IN_LIFETIME_MS],
  );
  return `${id}.${secret}`;
}
