import type { TestDb } from './test-app';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { SignJWT } from 'jose';
import { normalEmail } from '../../src/common/email-address';
import { SecretBox } from '../../src/common/secret-box';
import { sealedBodyContext } from '../../src/notifications/sign-in-email';
import { memberSignInLink } from '../../src/web/shared/sign-in.service';
import { SsoService } from '../../src/workspaces/sso.service';
import { TEST_ENCRYPTION_KEY } from './test-app';

/** The public site's origin in tests (startTestApp's PUBLIC_BASE_URL): forms are posted from it. */
export const SITE_ORIGIN = 'https://boards.chorus.test';
/** The dashboard's (startTestApp's BASE_URL). */
export const DASHBOARD_ORIGIN = 'https://chorus.test';

export interface PageAnswer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/**
 * A browser without JavaScript, over HTTP: it keeps the cookies it is given, follows no
 * redirect by itself, and posts forms from the site's own origin unless told otherwise.
 */
export class Visitor {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    readonly origin = SITE_ORIGIN,
  ) {}

  private cookieHeader(): string | undefined {
    return this.cookies.size > 0 ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a)) || attributes.some((a) => /^\s*max-age=0\b/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<PageAnswer> {
    const cookie = this.cookieHeader();
    const res = await fetch(this.baseUrl + path, { redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });
    this.keep(res);
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  async post(path: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<PageAnswer> {
    const cookie = this.cookieHeader();
    const res = await fetch(this.baseUrl + path, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.origin,
        ...(cookie ? { cookie } : {}),
        ...headers,
      },
      body: new URLSearchParams(Object.entries(form).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]))).toString(),
    });
    this.keep(res);
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  /** Follows a redirect's Location (a path on this host). */
  follow(answer: PageAnswer): Promise<PageAnswer> {
    if (!answer.location) throw new Error(`No redirect: ${answer.status}`);
    return this.get(answer.location.replace(/^https?:\/\/[^/]+/, ''));
  }
}

/** The form token of the form that posts to `action` (or of the first form). */
export function formToken(html: string, action?: string): string {
  const forms = html.split('<form').slice(1);
  const form = action ? forms.find((f) => f.startsWith(` method="post" action="${action}"`) || f.includes(`action="${action}"`)) : forms[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(form ?? '')?.[1];
  if (!token) throw new Error(`No form token for ${action ?? 'the first form'}`);
  return token;
}

/** The text a reader sees (tags dropped, references decoded), white space collapsed. */
export function pageText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A member signed in to the dashboard, through a one-time link as the CLI makes it. */
export async function signedInMember(baseUrl: string, app: INestApplicationContext, workspaceId: string, email: string): Promise<Visitor> {
  const member = new Visitor(baseUrl, DASHBOARD_ORIGIN);
  const path = new URL(await memberSignInLink(app, workspaceId, email)).pathname;
  const page = await member.get(path);
  const answer = await member.post(path, { _csrf: formToken(page.text) });
  if (answer.status !== 303) throw new Error(`signing in answered ${answer.status}: ${pageText(answer.text)}`);
  return member;
}

/**
 * A workspace's SSO secret, made for the test, and a signer of tokens with it. Each token gets a
 * `jti` of its own, as a customer's server signs one token per sign-in (a token signs in once),
 * unless the claims name one (`jti: undefined` for none).
 */
export async function ssoSigner(app: INestApplicationContext, workspaceId: string) {
  const secret = await app.get(SsoService).rotate(workspaceId);
  return {
    secret,
    sign: (claims: Record<string, unknown>, options: { alg?: string; expiresIn?: string | number; key?: string } = {}) => {
      const jwt = new SignJWT('jti' in claims ? claims : { ...claims, jti: randomUUID() }).setProtectedHeader({ alg: options.alg ?? 'HS256' }).setIssuedAt();
      if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn);
      return jwt.sign(new TextEncoder().encode(options.key ?? secret));
    },
  };
}

/** The code and link of the latest sign-in email queued for an address, sent to its normal form (opened as the outbox would). */
export async function sentSignIn(db: TestDb, email: string): Promise<{ code: string | null; link: string; subject: string; deliveryId: string }> {
  const [row] = await db.query(
    `SELECT id, workspace_id, body FROM webhook_deliveries WHERE event_type = 'sign_in' AND recipient = $1 ORDER BY created_at DESC LIMIT 1`,
    [normalEmail(email) ?? email],
  );
  if (!row) throw new Error(`No sign-in email queued for ${email}`);
  const mail = JSON.parse(new SecretBox(TEST_ENCRYPTION_KEY).open(row.body, sealedBodyContext(row.id)));
  return {
    code: /\n {4}(\d{3}) (\d{3})\n/.exec(mail.text)?.slice(1).join('') ?? null,
    link: /https?:\/\/\S+\/sign-in\/link\/\S+/.exec(mail.text)![0],
    subject: mail.subject,
    deliveryId: row.id,
  };
}
