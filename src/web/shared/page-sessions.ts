import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from '../../common/app-error';
import { clientNetwork } from '../../rate-limit/client-network';
import { clearCookie, readCookie, setCookie } from './cookies';
import { FormTokens } from './form-tokens';
import { CSRF_FIELD } from './forms';
import { PageError } from './page-error';
import type { AreaCookies } from './session-cookies';
import { isSecret, newSecret, Session, SessionsService } from './sessions.service';
import { SignInService } from './sign-in.service';

/**
 * Sessions as pages hold them, for both doors (the public site and the dashboard), used by their
 * guards and their sign-in controllers: who a request's session cookie names, the sign-in under
 * way (its cookie, a secret bound to the browser, to which the sign-in forms' tokens and the
 * codes asked for are bound), signing in and out, and the check of every form post's token.
 */
@Injectable()
export class PageSessions {
  constructor(
    private readonly sessions: SessionsService,
    private readonly signIn: SignInService,
    private readonly tokens: FormTokens,
  ) {}

  /**
   * The live session the door's session cookie names, if any, in `workspaceId` when given; a
   * cookie that names none is cleared. `cookie`: whether a session cookie came at all.
   */
  async signedIn(req: Request, res: Response, area: AreaCookies, workspaceId?: string): Promise<{ session: Session | null; cookie: boolean }> {
    const token = readCookie(req, area.session);
    let session = token ? await this.sessions.find(area.kind, token) : null;
    if (session && workspaceId !== undefined && session.workspaceId !== workspaceId) session = null;
    if (token && !session) clearCookie(res, area.session);
    return { session, cookie: token !== undefined };
  }

  /** The sign-in under way in this browser: its cookie's secret, if it holds one. */
  flow(req: Request, area: AreaCookies): string | null {
    const flow = readCookie(req, area.signIn);
    return isSecret(flow) ? flow : null;
  }

  /** Keeps this browser's sign-in cookie fresh, or starts one (with `fresh`, that one): answers its secret. */
  keepFlow(req: Request, res: Response, area: AreaCookies, fresh?: string): string {
    const flow = fresh ?? this.flow(req, area) ?? newSecret();
    setCookie(res, area.signIn, flow);
    return flow;
  }

  /** The token of a sign-in form: bound to the sign-in under way (kept, or started here). */
  signInForm(req: Request, res: Response, area: AreaCookies): { flow: string; token: string } {
    const flow = this.keepFlow(req, res, area);
    return { flow, token: this.tokens.for(flow) };
  }

  /** The token of a sign-in form for a sign-in known to be under way (its cookie left as it is). */
  signInToken(flow: string): string {
    return this.tokens.for(flow);
  }

  /**
   * Counts a sign-in email to `email` from this request's network against the limits: null when
   * within them, else what the form says (nothing is sent), with the response's Retry-After set.
   */
  async refusedByLimits(req: Request, res: Response, email: string): Promise<string | null> {
    try {
      await this.signIn.withinLimits(email, clientNetwork(req.ip));
      return null;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error;
      res.setHeader('Retry-After', error.headers['Retry-After']);
      return `${error.message} Nothing was sent.`;
    }
  }

  /**
   * Signs a person in through this door: a new session (a new id at every sign-in, the one
   * before, `before`, ended) and its cookie; the sign-in's cookie is done with.
   */
  async start(res: Response, area: AreaCookies, workspaceId: string, personId: string, before: Session | null | undefined): Promise<void> {
    if (before) await this.sessions.end(before.token);
    const { token } = await this.sessions.start(workspaceId, area.kind, personId);
    setCookie(res, area.session, token);
    clearCookie(res, area.signIn);
  }

  /** Signs out: the session ends, its cookie is cleared. */
  async end(res: Response, area: AreaCookies, session: Session): Promise<void> {
    await this.sessions.end(session.token);
    clearCookie(res, area.session);
  }

  /** A sign-in form's post carries the token bound to the sign-in under way (there is no session yet), else a 403 page. */
  checkSignInForm(req: Request, area: AreaCookies): void {
    const flow = this.flow(req, area);
    if (!flow || !this.tokens.matches(flow, sentToken(req))) throw stale();
  }

  /** Any other form's post comes from someone signed in, with the token bound to their session, else a 403 page. */
  checkSessionForm(req: Request, session: Session | null): void {
    if (!session) throw PageError.forbidden('You are not signed in any more. Sign in, then try again.');
    if (!this.tokens.matches(session.token, sentToken(req))) throw stale();
  }
}

const sentToken = (req: Request): unknown => (req.body as Record<string, unknown>)[CSRF_FIELD];

const stale = () =>
  PageError.forbidden('This form is out of date, or was not sent from this page. Nothing was changed: go back, reload the page and try again.');
