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
exports.DiscordChannel = exports.SlackChannel = void 0;
const common_1 = require("@nestjs/common");
const webhook_channel_1 = require("../webhooks/webhook.channel");
const webhook_sender_1 = require("../webhooks/webhook-sender");
const chat_messages_1 = require("./chat-messages");
const HEADERS = { 'Content-Type': 'application/json', 'User-Agent': webhook_sender_1.USER_AGENT };
let SlackChannel = class SlackChannel {
    sender;
    kind = 'slack';
    constructor(sender) {
        this.sender = sender;
    }
    async send(delivery, endpoint) {
        const result = await this.sender.post({ workspaceId: delivery.workspace_id, kind: 'slack', url: endpoint.url }, HEADERS, delivery.body);
        return { ...result, ok: (0, webhook_channel_1.isSuccess)(result.statusCode) };
    }
};
exports.SlackChannel = SlackChannel;
exports.SlackChannel = SlackChannel = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [webhook_sender_1.WebhookSender])
], SlackChannel);
let DiscordChannel = class DiscordChannel {
    sender;
    kind = 'discord';
    constructor(sender) {
        this.sender = sender;
    }
    async send(delivery, endpoint) {
        const target = { workspaceId: delivery.workspace_id, kind: 'discord', url: (0, chat_messages_1.discordWebhookUrl)(endpoint.url) };
        const result = await this.sender.post(target, HEADERS, delivery.body);
        return { ...result, ok: (0, webhook_channel_1.isSuccess)(result.statusCode) };
    }
};
exports.DiscordChannel = DiscordChannel;
exports.DiscordChannel = DiscordChannel = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [webhook_sender_1.WebhookSender])
], DiscordChannel);
//# sourceMappingURL=chat.channels.js.map