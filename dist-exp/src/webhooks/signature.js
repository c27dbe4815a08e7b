"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.signatureHeader = signatureHeader;
exports.standardWebhooksKey = standardWebhooksKey;
exports.signingHeaders = signingHeaders;
const node_crypto_1 = require("node:crypto");
const endpoints_service_1 = require("./endpoints.service");
function signatureHeader(body, secrets, now = new Date()) {
    const t = Math.floor(now.getTime() / 1000);
    const signatures = secrets.map((secret) => `v1=${(0, node_crypto_1.createHmac)('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
    return [`t=${t}`, ...signatures].join(',');
}
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
function standardWebhooksKey(secret) {
    const encoded = secret.startsWith(endpoints_service_1.SECRET_PREFIX) ? secret.slice(endpoints_service_1.SECRET_PREFIX.length) : secret;
    return encoded.length > 0 && STRICT_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : null;
}
function signingHeaders(deliveryId, body, secrets, at = new Date()) {
    const timestamp = Math.floor(at.getTime() / 1000);
    const headers = { 'Chorus-Signature': signatureHeader(body, secrets, at) };
    const keys = secrets.map(standardWebhooksKey).filter((key) => key !== null);
    if (keys.length > 0) {
        const signed = `${deliveryId}.${timestamp}.${body}`;
        headers['webhook-id'] = deliveryId;
        headers['webhook-timestamp'] = String(timestamp);
        headers['webhook-signature'] = keys.map((key) => `v1,${(0, node_crypto_1.createHmac)('sha256', key).update(signed).digest('base64')}`).join(' ');
    }
    return headers;
}
//# sourceMappingURL=signature.js.map