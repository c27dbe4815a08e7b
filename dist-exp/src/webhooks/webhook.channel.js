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
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookChannel = exports.isSuccess = void 0;
const common_1 = require("@nestjs/common");
const signature_1 = require("./signature");
const webhook_sender_1 = require("./webhook-sender");
const isSuccess = (statusCode) => statusCode !== null && statusCode >= 200 && statusCode < 300;
exports.isSuccess = isSuccess;
let WebhookChannel = class WebhookChannel {
    sender;
    kind = 'webhook';
    constructor(sender) {
        this.sender = sender;
    }
    async send(delivery, endpoint) {
        const result = await this.sender.post({ workspaceId: delivery.workspace_id, kind: 'webhook', url: endpoint.url }, {
            'Content-Type': 'application/json',
            'User-Agent': webhook_sender_1.USER_AGENT,
            'Chorus-Event': delivery.event_type,
            'Chorus-Delivery': delivery.id,
            ...(0, signature_1.signingHeaders)(delivery.id, delivery.body, endpoint.secrets, new Date()),
        }, delivery.body);
        return { ...result, ok: (0, exports.isSuccess)(result.statusCode) };
    }
};
exports.WebhookChannel = WebhookChannel;
exports.WebhookChannel = WebhookChannel = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [webhook_sender_1.WebhookSender])
], WebhookChannel);
//# sourceMappingURL=webhook.channel.js.map