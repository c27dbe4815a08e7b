"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.unsubscribeToken = unsubscribeToken;
exports.readUnsubscribeToken = readUnsubscribeToken;
const node_crypto_1 = require("node:crypto");
const CONTEXT = 'voter-email-unsubscribe';
const macOf = (box, workspaceId, email) => box.mac(`${workspaceId}\n${email.toLowerCase()}`, CONTEXT);
function unsubscribeToken(box, { workspaceId, email }) {
    const address = Buffer.from(email.toLowerCase(), 'utf8').toString('base64url');
    return `${workspaceId}.${address}.${macOf(box, workspaceId, email).toString('base64url')}`;
}
function readUnsubscribeToken(box, token) {
    const [workspaceId, address, mac, ...rest] = token.split('.');
    if (rest.length > 0 || !workspaceId || !address || !mac)
        return null;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(workspaceId))
        return null;
    const email = Buffer.from(address, 'base64url').toString('utf8');
    const given = Buffer.from(mac, 'base64url');
    const expected = macOf(box, workspaceId, email);
    if (given.length !== expected.length || !(0, node_crypto_1.timingSafeEqual)(given, expected))
        return null;
    return { workspaceId, email };
}
//# sourceMappingURL=unsubscribe-token.js.map