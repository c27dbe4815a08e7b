import type { MailMessage } from './mailer';

/** The event type of a sign-in email in the outbox: mail that a person asked for, not a notification. */
export const SIGN_IN_EMAIL = 'sign_in';

/** The context in which a sign-in email's sealed body opens: its own delivery row. */
export const sealedBodyContext = (deliveryId: string) => `webhook_deliveries.body:${deliveryId}`;

/** How long a sign-in code and its link work. */
export const SIGN_IN_LIFETIME_MS = 15 * 60 * 1000;

/** One line, no controls: safe in a header and a sentence. */
const oneLine = (text: string) => Array.from(text.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim()).slice(0, 100).join('');

/**
 * The email with a sign-in code and a link, to the public site of a workspace (`place` its
 * name) or to its dashboard. Plain text: nothing in it can run or hide a link.
 */
export function signInEmail(input: { to: string; place: string; code: string | null; link: string; dashboard: boolean }): MailMessage {
  const place = oneLine(input.place);
  const where = input.dashboard ? `the ${place} dashboard on Chorus` : `${place}'s feedback board`;
  const code = input.code ? `${input.code.slice(0, 3)} ${input.code.slice(3)}` : null;
  return {
    to: input.to,
    subject: code ? `${code} is your code for ${place}` : `Sign in to ${place}`,
    text:
      (code ? `Your code to sign in to ${where}:\n\n    ${code}\n\nOr open this link to sign in:\n` : `Open this link to sign in to ${where}:\n`) +
      `${input.link}\n\n` +
      `${code ? 'The code and the link work' : 'The link works'} once, within 15 minutes. ` +
      'If you did not ask to sign in, you can ignore this email: nobody can sign in without it.\n',
  };
}
