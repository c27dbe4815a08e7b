import { Injectable } from '@nestjs/common';
import { errors, jwtVerify } from 'jose';
import { AppError } from '../common/app-error';
import { normalEmail } from '../common/email-address';
import { codePoints } from '../common/validation';
import { randomBase62 } from '../common/random';
import { SecretBox } from '../common/secret-box';
import { SsoTokenUses, tokenUseKey } from './sso-token-uses.store';
import { WorkspacesStore } from './workspaces.store';

export const SSO_PREFIX = 'sso_';
/** How long the secret before a rotation keeps working. */
export const SSO_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
/** A token may be good for at most this long: a longer one is refused. */
export const SSO_MAX_LIFETIME_S = 24 * 60 * 60;
/** How far a token's `exp` may be behind this server's clock. */
const CLOCK_TOLERANCE_S = 5;

/** Who an SSO token says the visitor is. */
export interface SsoIdentity {
  email: string;
  name: string;
}

/** Why a token was refused, in words for the page. */
export class SsoRefusal extends Error {}

const context = (workspaceId: string) => `sso_secrets:${workspaceId}`;

/**
 * A workspace's SSO secret, with which the customer's server signs the JWT that signs its user
 * in to the public site (HS256, the whole secret string as the key, as with webhook secrets).
 * Stored sealed, since checking a signature needs it; shown once, when made or rotated; the
 * one before keeps working for 24 hours.
 */
@Injectable()
export class SsoService {
  constructor(
    private readonly store: WorkspacesStore,
    private readonly box: SecretBox,
    private readonly uses: SsoTokenUses,
  ) {}

  /** Makes a new secret (the first, or in place of the current one); answers it, for the only time. */
  async rotate(workspaceId: string): Promise<string> {
    const secret = SSO_PREFIX + randomBase62(40);
    await this.store.rotateSso(workspaceId, this.box.seal(secret, context(workspaceId)), SSO_ROTATION_GRACE_MS);
    return secret;
  }

  /** When the secret was last made, or null when the workspace has none. */
  async madeAt(workspaceId: string): Promise<Date | null> {
    return this.store.ssoMadeAt(workspaceId);
  }

  /**
   * The identity a token signs, taken for this one sign-in: the same token, or another with its
   * `jti`, is refused from then until it expires, on every instance. A token refused for
   * anything else is not taken.
   */
  async signIn(workspaceId: string, token: string): Promise<SsoIdentity> {
    const { identity, jti, exp } = await this.verify(workspaceId, token);
    const until = new Date((exp + CLOCK_TOLERANCE_S) * 1000);
    if (!(await this.uses.take(workspaceId, tokenUseKey(token, jti), until))) {
      throw new SsoRefusal('This token was used already: a token signs in once. Sign a new one for each sign-in.');
    }
    return identity;
  }

  /** Forgets the used tokens that have expired (the page sessions' hourly purge). */
  purgeUsedTokens(): Promise<void> {
    return this.uses.purgeExpired();
  }

  /**
   * The identity a token signs (and its `jti` and `exp`), or an SsoRefusal saying what is wrong
   * with it: no secret, not a JWT, another algorithm (`none` included), a signature made with no
   * valid secret, no `exp`, expired, good for more than 24 hours, or without `email` and `name`.
   */
  private async verify(workspaceId: string, token: string): Promise<{ identity: SsoIdentity; jti: unknown; exp: number }> {
    const keys = await this.keys(workspaceId);
    if (keys.length === 0) throw new SsoRefusal('This workspace has not set up single sign-on.');
    let failure: unknown = null;
    for (const key of keys) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp'], clockTolerance: CLOCK_TOLERANCE_S });
        if (payload.exp! > Date.now() / 1000 + SSO_MAX_LIFETIME_S) {
          throw new SsoRefusal('The token is good for more than 24 hours ("exp"); sign tokens that expire sooner.');
        }
        // The person is found by the address's normal form: a lookalike (`K`, `İ`) is someone else.
        const email = typeof payload.email === 'string' ? normalEmail(payload.email) : null;
        const name = typeof payload.name === 'string' ? payload.name.trim() : '';
        if (email === null) throw new SsoRefusal('The token has no valid "email" claim.');
        if (!name || codePoints(name) > 100) throw new SsoRefusal('The token needs a "name" claim of 1 to 100 characters.');
        return { identity: { email, name }, jti: payload.jti, exp: payload.exp! };
      } catch (error) {
        if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw refusal(error);
        failure = error;
      }
    }
    throw refusal(failure);
  }

  private async keys(workspaceId: string): Promise<Uint8Array[]> {
    const sealed = await this.store.ssoSecrets(workspaceId);
    return sealed.map((s) => new TextEncoder().encode(this.box.open(s, context(workspaceId))));
  }
}

function refusal(error: unknown): Error {
  if (error instanceof SsoRefusal) return error;
  if (error instanceof errors.JOSEAlgNotAllowed) return new SsoRefusal('The token must be signed with HS256 ("alg"); other algorithms, and none, are refused.');
  if (error instanceof errors.JWSSignatureVerificationFailed) return new SsoRefusal("The token's signature does not match this workspace's SSO secret.");
  if (error instanceof errors.JWTExpired) return new SsoRefusal('The token has expired ("exp").');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new SsoRefusal(error.claim === 'exp' ? 'The token has no "exp" claim; it needs one.' : `The token's "${error.claim}" claim is not valid.`);
  }
  if (error instanceof errors.JOSEError) return new SsoRefusal('The token is not a valid JWT.');
  if (error instanceof AppError) return error;
  return error instanceof Error ? error : new Error(String(error));
}
