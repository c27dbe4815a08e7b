import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { SecretBox } from '../common/secret-box';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { readUnsubscribeToken, Unsubscriber } from './unsubscribe-token';

/** Voter email's opt-out: kept on the person, for every address match in the workspace. */
@Injectable()
export class UnsubscribeService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly box: SecretBox,
  ) {}

  /** Whom the link names; 404 for a link we did not make. */
  read(token: string): Unsubscriber {
    const who = readUnsubscribeToken(this.box, token);
    if (!who) throw AppError.notFound('unsubscribe link');
    return who;
  }

  /** Stops all voter email of the workspace to the address (emails already queued are not sent). */
  async unsubscribe(token: string): Promise<void> {
    const { workspaceId, email } = this.read(token);
    await this.workspaces.unsubscribe(workspaceId, email);
  }
}
