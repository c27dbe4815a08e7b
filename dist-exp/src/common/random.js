"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.randomBase62 = randomBase62;
exports.pooledRandomId = pooledRandomId;
const node_crypto_1 = require("node:crypto");
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function randomBase62(length) {
    let out = '';
    while (out.length < length) {
        for (const byte of (0, node_crypto_1.randomBytes)(length * 2)) {
            if (byte < 248 && out.length < length)
                out += BASE62[byte % 62];
        }
    }
    return out;
}
const POOL_BYTES = 12 * 1024;
let pool = Buffer.alloc(0);
let used = 0;
function pooledRandomId(bytes) {
    if (used + bytes > pool.length) {
        pool = (0, node_crypto_1.randomBytes)(POOL_BYTES);
        used = 0;
    }
    used += bytes;
    return pool.toString('base64url', used - bytes, used);
}
//# sourceMappingURL=random.js.map