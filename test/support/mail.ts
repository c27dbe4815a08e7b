import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';

// ---------------------------------------------------------------------------------------------
// A small RFC 5322 reader: the headers we need (encoded-words decoded) and the text body
// (quoted-printable or base64 decoded). mailparser is not available here.

export interface Mail {
  headers: Map<string, string>;
  to: string;
  subject: string;
  text: string;
}

/** Decodes RFC 2047 encoded-words (Q and B); adjacent words join (whitespace between them goes). */
function decodeWords(value: string): string {
  const word = /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g;
  let out = '';
  let last = 0;
  let pending: Buffer[] = [];
  let charset = 'utf-8';
  const flush = () => {
    if (pending.length) out += new TextDecoder(charset).decode(Buffer.concat(pending));
    pending = [];
  };
  for (let m = word.exec(value); m; m = word.exec(value)) {
    const between = value.slice(last, m.index);
    if (!(pending.length && /^\s*$/.test(between))) {
      flush();
      out += between;
    }
    charset = m[1].split('*')[0].toLowerCase();
    pending.push(
      m[2].toUpperCase() === 'B'
        ? Buffer.from(m[3], 'base64')
        : Buffer.from(
            m[3].replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ),
    );
    last = m.index + m[0].length;
  }
  flush();
  return out + value.slice(last);
}

function decodeQuotedPrintable(body: string): Buffer {
  const soft = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i], 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

export function parseMail(raw: string): Mail {
  const text = raw.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const body = split === -1 ? '' : text.slice(split + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n(?=[ \t])/g, '').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const type = headers.get('content-type') ?? 'text/plain';
  if (!/^text\/plain/i.test(type)) throw new Error(`expected a text/plain message, got ${type}`);
  const charset = /charset="?([^";\s]+)"?/i.exec(type)?.[1] ?? 'utf-8';
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
        : Buffer.from(body, 'utf8');
  return {
    headers,
    to: decodeWords(headers.get('to') ?? ''),
    subject: decodeWords(headers.get('subject') ?? ''),
    text: new TextDecoder(charset).decode(bytes),
  };
}

/** The bare address of a To header (`Name <a@b>` or `a@b`). */
export const addressOf = (to: string) => (/<([^>]+)>/.exec(to)?.[1] ?? to).trim().toLowerCase();

// ---------------------------------------------------------------------------------------------
// A real SMTP server

export interface Accepted {
  envelopeTo: string[];
  raw: string;
  mail: Mail;
  at: number;
}

/** How an attempt is refused: 450 at RCPT TO, 451 after DATA, or the connection dropped during DATA (no answer). */
type Refusal = 'rcpt' | 'data' | 'drop';

export class MailServer {
  readonly accepted: Accepted[] = [];
  /** Per recipient: how each attempt is refused, in order; attempts beyond the list are accepted. */
  private readonly refusals = new Map<string, Refusal[]>();
  /** Per recipient: RCPT TO commands seen (one per attempt). */
  readonly attempts = new Map<string, number>();
  /** SMTP connections opened to this server so far. */
  connections = 0;
  /** Messages accepted on each connection, by the client's port. */
  private readonly perConnection = new Map<number, number>();
  /** The client sockets, by the client's port, to drop one as a failing server would. */
  private readonly sockets = new Map<number, Socket>();
  /** How long each message's DATA takes to be answered. */
  delayMs = 0;
  /** When set: the connection is closed (no QUIT, no 421) right after it had this many messages accepted. */
  closeAfter: number | null = null;
  private readonly server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_session, callback) => {
        this.connections += 1;
        callback();
      },
      onRcptTo: (address, session, callback) => this.onRcptTo(address, session, callback),
      onData: (stream, session, callback) => this.onData(stream, session, callback),
    });
  }

  async start(): Promise<this> {
    this.server.server.on('connection', (socket: Socket) => {
      const port = socket.remotePort!;
      this.sockets.set(port, socket);
      socket.once('close', () => this.sockets.delete(port));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Messages accepted per connection, in the order the connections were opened. */
  messagesPerConnection(): number[] {
    return [...this.perConnection.values()];
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  refuse(recipient: string, how: Refusal[]): void {
    this.refusals.set(recipient.toLowerCase(), how);
  }

  /** Messages accepted for addresses at this domain. */
  to(domain: string): Accepted[] {
    return this.accepted.filter((m) => m.envelopeTo.some((a) => a.endsWith(`@${domain}`)));
  }

  private static error(code: number, message: string): Error {
    return Object.assign(new Error(message), { responseCode: code });
  }

  private refusalFor(address: string): Refusal | undefined {
    const attempt = this.attempts.get(address) ?? 0;
    return this.refusals.get(address)?.[attempt - 1];
  }

  private onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
    const to = address.address.toLowerCase();
    this.attempts.set(to, (this.attempts.get(to) ?? 0) + 1);
    if (this.refusalFor(to) === 'rcpt') return callback(MailServer.error(450, 'Mailbox busy, try again later'));
    callback();
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) {
    const chunks: Buffer[] = [];
    const client = session.remotePort;
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const envelopeTo = session.envelope.rcptTo.map((a) => a.address.toLowerCase());
      if (envelopeTo.some((to) => this.refusalFor(to) === 'drop')) {
        this.sockets.get(client)?.destroy(); // the whole message was sent; no answer ever comes
        return;
      }
      if (envelopeTo.some((to) => this.refusalFor(to) === 'data')) {
        return callback(MailServer.error(451, 'Local error in processing, try again later'));
      }
      const accept = () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.accepted.push({ envelopeTo, raw, mail: parseMail(raw), at: Date.now() });
        const count = (this.perConnection.get(client) ?? 0) + 1;
        this.perConnection.set(client, count);
        callback();
        // Closed as a server that ends overused connections does, once its 250 is out (a FIN, no 421).
        if (this.closeAfter !== null && count >= this.closeAfter) this.sockets.get(client)?.end();
      };
      if (this.delayMs > 0) setTimeout(accept, this.delayMs);
      else accept();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
