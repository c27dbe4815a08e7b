import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../common/secret-box';

/**
 * The token every form that changes something carries: an HMAC of the secret it is bound to (a
 * session's token, or a sign-in's own cookie before there is a session), so another session's
 * token, or a page of another site, cannot pass for it. Nothing is stored.
 */
@Injectable()
export class FormTokens {
  constructor(private readonly box: SecretBox) {}

  for(binding: string): string {
    return this.box.mac(binding, 'form-token').toString('base64url');
  }

  matches(binding: string, token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const expected = Buffer.from(this.for(binding));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
