import { FormAlert, FormState, TextField, Token } from '../../shared/forms';
import { Fragment, h } from '../../shared/html';
import { shownText } from '../../shared/text';
import { AdminFrame, adminPage } from './frame';

interface Form {
  form: FormState;
  action: string;
  token: string;
  redirect: string;
}

/** Asks a member for their email, and sends a code. */
export function adminSignInPage(frame: AdminFrame, view: Form): string {
  return adminPage(
    frame,
    'Sign in',
    null,
    <div class="narrow">
      <h1>Sign in to the dashboard</h1>
      <p>We will email a code to members of a workspace.</p>
      <form method="post" action={view.action} class="card" novalidate>
        <Token value={view.token} />
        <input type="hidden" name="redirect" value={view.redirect} />
        <FormAlert form={view.form} />
        <TextField form_id="sign-in" name="email" type="email" label="Email" form={view.form} required autocomplete="email" />
        <button type="submit">Email me a code</button>
      </form>
    </div>,
  );
}

/** Asks for the emailed code. */
export function adminCodePage(frame: AdminFrame, view: Form & { again: string }): string {
  return adminPage(
    frame,
    'Enter your code',
    null,
    <div class="narrow">
      <h1>Check your email</h1>
      <p>If that address belongs to a member, a 6-digit code and a sign-in link are on their way. They work once, for 15 minutes.</p>
      <form method="post" action={view.action} class="card" novalidate>
        <Token value={view.token} />
        <input type="hidden" name="redirect" value={view.redirect} />
        <FormAlert form={view.form} />
        <TextField form_id="code" name="code" label="Code" form={view.form} required inputmode="numeric" autocomplete="one-time-code" maxlength={7} class="code-input" />
        <button type="submit">Sign in</button>
      </form>
      <p>
        <a href={view.again}>Get a new code</a>
      </p>
    </div>,
  );
}

/** A member of several workspaces picks the one to run. */
export function choosePage(frame: AdminFrame, view: { action: string; token: string; redirect: string; workspaces: { id: string; name: string; slug: string }[] }): string {
  return adminPage(
    frame,
    'Choose a workspace',
    null,
    <div class="narrow">
      <h1>Choose a workspace</h1>
      <p>You are a member of more than one.</p>
      <ul class="stack plain-list">
        {view.workspaces.map((w) => (
          <li class="card">
            <form method="post" action={view.action}>
              <Token value={view.token} />
              <input type="hidden" name="redirect" value={view.redirect} />
              <input type="hidden" name="workspace" value={w.id} />
              <button type="submit">Open {shownText(w.name)}</button> <span class="count">{w.slug}</span>
            </form>
          </li>
        ))}
      </ul>
    </div>,
  );
}

/** A one-time sign-in link: a button (a mail scanner opening it uses nothing up), or why it no longer works. */
export function adminLinkPage(frame: AdminFrame, view: { problem: string | null; action: string; token: string; again: string }): string {
  return adminPage(
    frame,
    'Sign in',
    null,
    <div class="narrow">
      <h1>Sign in to the dashboard</h1>
      {view.problem ? (
        <>
          <p class="alert alert-error" role="alert">
            {view.problem}
          </p>
          <p>
            <a href={view.again}>Sign in with a code instead</a>
          </p>
        </>
      ) : (
        <form method="post" action={view.action} class="card">
          <Token value={view.token} />
          <p>Sign in on this device.</p>
          <button type="submit">Sign in</button>
        </form>
      )}
    </div>,
  );
}
