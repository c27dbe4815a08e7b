import type { PostStatusChangedData } from './chat-messages';
import type { MailMessage } from './mailer';

const STATUS_WORDS: Record<string, string> = {
  open: 'Open',
  planned: 'Planned',
  in_progress: 'In progress',
  done: 'Done',
  closed: 'Closed',
};

const words = (status: string) => STATUS_WORDS[status] ?? status;
/** Header-safe: one line, no controls, at most 150 characters. */
const oneLine = (text: string) => Array.from(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()).slice(0, 150).join('');

/** Whether a status event tells voters something: the status really changed. */
export const isRealStatusChange = (data: PostStatusChangedData) => data.previous_status !== data.post.status;

/**
 * The email a voter gets when a post they voted for changes status. `unsubscribeUrl` stops all
 * voter email of this workspace to this address: linked in the text, and given to mail clients
 * as a one-click unsubscribe (RFC 8058).
 */
export function voterEmail(data: PostStatusChangedData, to: string, unsubscribeUrl: string): MailMessage {
  const { post } = data;
  const title = oneLine(post.title);
  const change = `${words(data.previous_status)} → ${words(post.status)}`;
  const merged = data.merged_into ? `It was merged into “${oneLine(data.merged_into.title)}”.\n\n` : '';
  return {
    to,
    subject: `“${title}” is now ${words(post.status).toLowerCase()}`,
    text:
      `A post you voted for on ${oneLine(post.board.name)} has a new status.\n\n` +
      `  ${title}\n  ${change}\n\n` +
      merged +
      `See it here: ${post.url}\n\n` +
      `You get this email because you voted for this post.\n` +
      `To get no more of these emails: ${unsubscribeUrl}\n`,
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
