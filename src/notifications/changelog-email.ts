import type { MailMessage } from './mailer';

/** Header-safe: one line, no controls or bidi overrides, at most 150 characters. */
const oneLine = (text: string) =>
  Array.from(text.replace(/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim())
    .slice(0, 150)
    .join('');

export interface ChangelogEmailInput {
  to: string;
  workspaceName: string;
  entry: { title: string; url: string };
  /** The linked posts this address voted on (none: a subscriber of the changelog). */
  voted: { title: string; url: string }[];
  unsubscribeUrl: string;
}

/**
 * The email a voter of a linked post, or a subscriber, gets when an entry is published: the
 * entry, its link, the posts this person asked for, and voter email's unsubscribe (linked in
 * the text, and as a one-click unsubscribe, RFC 8058). Plain text: nothing in it can run.
 */
export function changelogEmail(input: ChangelogEmailInput): MailMessage {
  const title = oneLine(input.entry.title);
  const place = oneLine(input.workspaceName);
  const asked =
    input.voted.length > 0
      ? `You voted for:\n${input.voted.map((post) => `  - ${oneLine(post.title)}\n    ${post.url}`).join('\n')}\n\n`
      : '';
  const why = input.voted.length > 0 ? 'you voted for a post it answers' : `you subscribed to ${place}'s changelog`;
  return {
    to: input.to,
    subject: `Shipped: “${title}”`,
    text:
      `${place} published a changelog entry:\n\n` +
      `  ${title}\n\n` +
      `Read it here: ${input.entry.url}\n\n` +
      asked +
      `You get this email because ${why}.\n` +
      `To get no more of these emails: ${input.unsubscribeUrl}\n`,
    headers: {
      'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
