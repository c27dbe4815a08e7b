import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { normalEmail } from '../common/email-address';
import { SecretBox } from '../common/secret-box';
import { readUnsubscribeToken, Unsubscriber } from './unsubscribe-token';

/** Voter email's opt-out: kept on the person, for every address match in the workspace. */
@Injectable()
export class UnsubscribeService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly box: SecretBox,
  ) {}

  /** Whom the link names; 404 for a link we did not make. */
  read(token: string): Unsubscriber {
    const who = readUnsubscribeToken(this.box, token);
    if (!who) throw AppError.notFound('unsubscribe link');
    return who;
  }

  /**
   * Stops all voter email of the workspace to the address, found by its normal form as people
   * are (a lookalike is someone else); emails already queued are not sent.
   */
  async unsubscribe(token: string): Promise<void> {
    const { workspaceId, email } = this.read(token);
    const normal = normalEmail(email);
    if (normal === null) return;
    await this.db.query(
      `UPDATE people SET email_unsubscribed_at = now()
        WHERE workspace_id = $1 AND email = $2 AND email_unsubscribed_at IS NULL`,
      [workspaceId, normal],
    );
  }
}
