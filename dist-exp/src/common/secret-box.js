"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SecretBox = void 0;
const node_crypto_1 = require("node:crypto");
const VERSION = 'v1';
class SecretBox {
    key;
    constructor(keyHex) {
        if (!/^[0-9a-f]{64}$/i.test(keyHex))
            throw new Error('The encryption key must be 64 hex characters.');
        this.key = Buffer.from(keyHex, 'hex');
    }
    seal(plain, context) {
        const iv = (0, node_crypto_1.randomBytes)(12);
        const cipher = (0, node_crypto_1.createCipheriv)('aes-256-gcm', this.key, iv);
        cipher.setAAD(Buffer.from(context, 'utf8'));
        const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
        return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
    }
    open(sealed, context) {
        const [version, payload] = sealed.split(':', 2);
        if (version !== VERSION || !payload)
            throw new Error('Not a sealed value.');
        const raw = Buffer.from(payload, 'base64');
        if (raw.length < 28)
            throw new Error('Not a sealed value.');
        const decipher = (0, node_crypto_1.createDecipheriv)('aes-256-gcm', this.key, raw.subarray(0, 12), { authTagLength: 16 });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    }
    mac(text, context) {
        const key = (0, node_crypto_1.createHmac)('sha256', this.key).update(`mac:${context}`).digest();
        return (0, node_crypto_1.createHmac)('sha256', key).update(text, 'utf8').digest();
    }
}
exports.SecretBox = SecretBox;
//# sourceMappingURL=secret-box.js.map