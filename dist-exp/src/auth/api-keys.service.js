"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ApiKeysService = exports.KEY_PREFIX = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const random_1 = require("../common/random");
const plans_1 = require("../workspaces/plans");
const workspaces_service_1 = require("../workspaces/workspaces.service");
const api_key_entity_1 = require("./api-key.entity");
const caller_cache_1 = require("./caller-cache");
exports.KEY_PREFIX = 'chorus_key_';
const BEARER = /^bearer +(\S+) *$/i;
const hashKey = (key) => (0, node_crypto_1.createHash)('sha256').update(key).digest('hex');
let ApiKeysService = class ApiKeysService {
    keys;
    workspaces;
    callers;
    constructor(keys, workspaces, callers) {
        this.keys = keys;
        this.workspaces = workspaces;
        this.callers = callers;
    }
    async create(workspaceSlug, memberEmail) {
        const workspace = await this.workspaces.findBySlug(workspaceSlug);
        const member = await this.workspaces.findMemberByEmail(workspace.id, memberEmail);
        const key = exports.KEY_PREFIX + (0, random_1.randomBase62)(40);
        const saved = await this.keys.save(this.keys.create({
            workspaceId: workspace.id,
            keyHash: hashKey(key),
            keyPrefix: key.slice(0, exports.KEY_PREFIX.length + 4),
            createdBy: member.id,
        }));
        return { id: saved.id, key };
    }
    list(workspaceId) {
        return this.keys.find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
    }
    async revoke(id) {
        const key = /^[0-9a-f-]{36}$/i.test(id) ? await this.keys.findOneBy({ id }) : null;
        if (!key)
            throw new app_error_1.AppError('not_found', `No API key with id ${id}.`);
        if (!key.revokedAt)
            await this.keys.update({ workspaceId: key.workspaceId, id }, { revokedAt: new Date() });
        this.callers.clear();
    }
    async authorize(header) {
        const token = BEARER.exec(header ?? '')?.[1];
        const caller = token ? await this.authenticate(token) : null;
        if (!caller) {
            throw new app_error_1.AppError('unauthorized', token ? 'The API key is wrong or revoked.' : 'Send an API key as "Authorization: Bearer <key>".', { 'WWW-Authenticate': 'Bearer realm="chorus"' });
        }
        if (!(0, plans_1.isPlan)(caller.plan) || !plans_1.PLANS[caller.plan].api) {
            throw new app_error_1.AppError('plan_required', 'The API is available on the Pro plan and above.');
        }
        return caller;
    }
    async authenticate(key) {
        if (!key.startsWith(exports.KEY_PREFIX))
            return null;
        const keyHash = hashKey(key);
        return this.callers.get(keyHash, () => this.lookUp(keyHash));
    }
    async lookUp(keyHash) {
        const rows = await this.keys.query(`SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
           FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, [keyHash]);
        const row = rows[0];
        if (!row)
            return null;
        return {
            workspaceId: row.workspace_id,
            workspaceSlug: row.slug,
            plan: row.plan,
            keyId: row.key_id,
            personId: row.created_by,
        };
    }
};
exports.ApiKeysService = ApiKeysService;
exports.ApiKeysService = ApiKeysService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectRepository)(api_key_entity_1.ApiKeyEntity)),
    __metadata("design:paramtypes", [typeorm_2.Repository,
        workspaces_service_1.WorkspacesService,
        caller_cache_1.CallerCache])
], ApiKeysService);
//# sourceMappingURL=api-keys.service.js.map