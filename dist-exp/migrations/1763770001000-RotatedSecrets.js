"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RotatedSecrets1763770001000 = void 0;
class RotatedSecrets1763770001000 {
    name = 'RotatedSecrets1763770001000';
    async up(q) {
        await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN rotated_secrets jsonb NOT NULL DEFAULT '[]'`);
        await q.query(`UPDATE webhook_endpoints
          SET rotated_secrets = jsonb_build_array(jsonb_build_object('sealed', previous_secret_sealed, 'expires_at', previous_secret_expires_at))
        WHERE previous_secret_sealed IS NOT NULL AND previous_secret_expires_at > now()`);
        await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN previous_secret_sealed, DROP COLUMN previous_secret_expires_at`);
    }
    async down(q) {
        await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_sealed text, ADD COLUMN previous_secret_expires_at timestamptz(3)`);
        await q.query(`UPDATE webhook_endpoints
          SET previous_secret_sealed = rotated_secrets -> 0 ->> 'sealed',
              previous_secret_expires_at = (rotated_secrets -> 0 ->> 'expires_at')::timestamptz
        WHERE jsonb_array_length(rotated_secrets) > 0`);
        await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN rotated_secrets`);
    }
}
exports.RotatedSecrets1763770001000 = RotatedSecrets1763770001000;
//# sourceMappingURL=1763770001000-RotatedSecrets.js.map