import { Injectable } from '@nestjs/common';
import { Links } from '../../config/links';
import { SIGN_IN_LIFETIME_MS } from '../../notifications/sign-in-email';
import { cookieSpec, CookieSpec } from './cookies';
import { SESSION_LIFETIME_MS, SessionKind } from './sessions.service';

/**
 * The cookies of one door (a workspace's public site, or the dashboard): the session of the
 * person signed in there, and a sign-in under way. Both hold what `newSecret` makes (the session
 * `<workspace id>.<session id>.<secret>`, the sign-in the secret alone), and are HttpOnly and
 * SameSite=Lax (cookies.ts).
 */
export interface AreaCookies {
  /** Who signs in through this door. */
  kind: SessionKind;
  session: CookieSpec;
  signIn: CookieSpec;
}

/**
 * Every page cookie's name and rules, in one place. The site's are a visitor's session in a
 * workspace (`chorus-<slug>`) and a sign-in under way there (`chorus-signin.<slug>`), on path
 * `/`. A slug holds no dot, so no cookie name of one workspace is another's, whatever their slugs
 * (`signin-acme`'s session is not `acme`'s sign-in), nor one of the dashboard's: a name without a
 * dot is a session's, and the part before a dot says whose cookie it is. The dashboard's are on
 * path `/admin`, so the public site never sees them, and their names hold a dot after `chorus`
 * (`chorus.admin`, `chorus.admin-signin`), which no cookie of a workspace's site can: the
 * site's cookies are sent to /admin too.
 */
@Injectable()
export class SessionCookies {
  readonly dashboard: AreaCookies;

  constructor(private readonly links: Links) {
    const rules = { path: links.adminPath('/admin'), secure: links.dashboardIsHttps };
    this.dashboard = {
      kind: 'member',
      session: cookieSpec('chorus.admin', { ...rules, maxAgeMs: SESSION_LIFETIME_MS.member }),
      signIn: cookieSpec('chorus.admin-signin', { ...rules, maxAgeMs: SIGN_IN_LIFETIME_MS }),
    };
  }

  site(workspaceSlug: string): AreaCookies {
    const rules = { path: '/', secure: this.links.siteIsHttps };
    return {
      kind: 'visitor',
      session: cookieSpec(`chorus-${workspaceSlug}`, { ...rules, maxAgeMs: SESSION_LIFETIME_MS.visitor }),
      signIn: cookieSpec(`chorus-signin.${workspaceSlug}`, { ...rules, maxAgeMs: SIGN_IN_LIFETIME_MS }),
    };
  }

  /**
   * The cookies of a workspace's site inside the widget's frame (`/embed/<slug>/…`): the same
   * visitor sessions, in cookies of their own that are HttpOnly, Secure, SameSite=None and
   * Partitioned (cookies.ts), on path `/embed`, so that a first-party visit to the site never
   * sends them (nor does the embed read the site's). Their names begin `chorus.embed`
   * (`chorus.embed.<slug>`, `chorus.embed-signin.<slug>`): a dot after `chorus`, unlike the
   * site's, and not the dashboard's `chorus.admin…`.
   */
  embed(workspaceSlug: string): AreaCookies {
    const rules = { path: this.links.publicPath('/embed'), secure: this.links.siteIsHttps, framed: true };
    return {
      kind: 'visitor',
      session: cookieSpec(`chorus.embed.${workspaceSlug}`, { ...rules, maxAgeMs: SESSION_LIFETIME_MS.visitor }),
      signIn: cookieSpec(`chorus.embed-signin.${workspaceSlug}`, { ...rules, maxAgeMs: SIGN_IN_LIFETIME_MS }),
    };
  }
}
