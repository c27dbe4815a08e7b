"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.EventsService = exports.OUTBOX_CHANNEL = void 0;
const common_1 = require("@nestjs/common");
exports.OUTBOX_CHANNEL = 'chorus_outbox';
let EventsService = class EventsService {
    async record(manager, workspaceId, type, data, actorId = null) {
        await manager.query(`WITH event AS (
         INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
         SELECT $1, $2, $3, $4, ARRAY(
           SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
            WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free')
         RETURNING id)
       SELECT pg_notify($5, '') FROM event`, [workspaceId, type, JSON.stringify(data), actorId, exports.OUTBOX_CHANNEL]);
    }
};
exports.EventsService = EventsService;
exports.EventsService = EventsService = __decorate([
    (0, common_1.Injectable)()
], EventsService);
//# sourceMappingURL=events.service.js.map