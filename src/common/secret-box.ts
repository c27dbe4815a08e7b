import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets at rest (signing secrets, Slack and Discord URLs). Each value is
 * bound to where it is stored (`context`, e.g. `webhook_endpoints.url:<id>`), so a sealed
 * value copied into another row or column does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyHex: string) {
    if (!/^[0-9a-f]{64}$/i.test(keyHex)) throw new Error('The encryption key must be 64 hex characters.');
    this.key = Buffer.from(keyHex, 'hex');
  }

  /** `v1:<base64 of iv | tag | ciphertext>` */
  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  open(sealed: string, context: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || !payload) throw new Error('Not a sealed value.');
    const raw = Buffer.from(payload, 'base64');
    if (raw.length < 28) throw new Error('Not a sealed value.');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** An HMAC-SHA256 of `text` under a key of its own for each `context` (derived from the box's key). */
  mac(text: string, context: string): Buffer {
    const key = createHmac('sha256', this.key).update(`mac:${context}`).digest();
    return createHmac('sha256', key).update(text, 'utf8').digest();
  }
}
