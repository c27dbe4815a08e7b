"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.encryptionKey = encryptionKey;
const node_fs_1 = require("node:fs");
const node_crypto_1 = require("node:crypto");
const node_path_1 = require("node:path");
const app_config_1 = require("./app-config");
function encryptionKey(config, database) {
    if (config.encryptionKey)
        return config.encryptionKey;
    if (!database.embedded) {
        throw new app_config_1.ConfigError('ENCRYPTION_KEY is required with a PostgreSQL server: 64 hex characters (openssl rand -hex 32).');
    }
    const file = (0, node_path_1.join)(config.dataDir, 'encryption.key');
    if (!(0, node_fs_1.existsSync)(file)) {
        (0, node_fs_1.mkdirSync)(config.dataDir, { recursive: true });
        (0, node_fs_1.writeFileSync)(file, `${(0, node_crypto_1.randomBytes)(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    }
    const key = (0, node_fs_1.readFileSync)(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(key))
        throw new app_config_1.ConfigError(`${file} does not hold a 64-hex-character key.`);
    return key;
}
//# sourceMappingURL=encryption-key.js.map