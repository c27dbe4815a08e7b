import { FormAlert, FormState, TextField, Token } from '../../shared/forms';
import { Fragment, h } from '../../shared/html';
import { shownText } from '../../shared/text';
import { SiteFrame, sitePage } from './frame';

export interface SignInView {
  form: FormState;
  /** Where the form posts, and the token bound to this browser's sign-in. */
  action: string;
  token: string;
  /** Where the visitor goes once signed in. */
  redirect: string;
  canonical: string;
}

const meta = (frame: SiteFrame, title: string, canonical: string) => ({
  title: `${title} · ${shownText(frame.workspace.name)}`,
  description: `Sign in to ${shownText(frame.workspace.name)}'s feedback board to vote, post and comment.`,
  canonical,
  noindex: true,
});

/** Asks for an email and a name, and sends a code. */
export function signInPage(frame: SiteFrame, view: SignInView): string {
  return sitePage(
    frame,
    meta(frame, 'Sign in', view.canonical),
    null,
    <div class="narrow">
      <h1>Sign in</h1>
      <p>We will email you a code to sign in with. No password needed.</p>
      <form method="post" action={view.action} class="card" novalidate>
        <Token value={view.token} />
        <input type="hidden" name="redirect" value={view.redirect} />
        <FormAlert form={view.form} />
        <TextField form_id="sign-in" name="email" type="email" label="Email" form={view.form} required autocomplete="email" />
        <TextField form_id="sign-in" name="name" label="Name" form={view.form} required maxlength={100} autocomplete="name" hint="Shown beside your posts and comments." />
        <button type="submit">Email me a code</button>
      </form>
    </div>,
  );
}

/** Asks for the code that was emailed. */
export function codePage(frame: SiteFrame, view: SignInView & { email: string | null; again: string }): string {
  return sitePage(
    frame,
    meta(frame, 'Enter your code', view.canonical),
    null,
    <div class="narrow">
      <h1>Check your email</h1>
      <p>
        {view.email ? (
          <>
            If <bdi class="user-text">{view.email}</bdi> can receive email, a 6-digit code and a sign-in link are on their way.
          </>
        ) : (
          'If that address can receive email, a 6-digit code and a sign-in link are on their way.'
        )}{' '}
        They work once, for 15 minutes.
      </p>
      <form method="post" action={view.action} class="card" novalidate>
        <Token value={view.token} />
        <input type="hidden" name="redirect" value={view.redirect} />
        <FormAlert form={view.form} />
        <TextField
          form_id="code"
          name="code"
          label="Code"
          form={view.form}
          required
          inputmode="numeric"
          autocomplete="one-time-code"
          maxlength={7}
          class="code-input"
        />
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href={view.again}>Use another email, or get a new code</a>
      </p>
    </div>,
  );
}

/** A sign-in link from an email: a button, so that a mail scanner opening the link uses nothing up; or why it no longer works. */
export function linkPage(frame: SiteFrame, view: { problem: string | null; action: string; token: string; canonical: string; again: string }): string {
  return sitePage(
    frame,
    meta(frame, 'Sign in', view.canonical),
    null,
    <div class="narrow">
      <h1>Sign in</h1>
      {view.problem ? (
        <>
          <p class="alert alert-error" role="alert">
            {view.problem}
          </p>
          <p>
            <a href={view.again}>Get a new code</a>
          </p>
        </>
      ) : (
        <form method="post" action={view.action} class="card">
          <Token value={view.token} />
          <p>
            Sign in to <bdi class="user-text">{shownText(frame.workspace.name)}</bdi> on this device.
          </p>
          <button type="submit">Sign in</button>
        </form>
      )}
    </div>,
  );
}
