"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.OutboxModule = void 0;
const axios_1 = require("@nestjs/axios");
const common_1 = require("@nestjs/common");
const schedule_1 = require("@nestjs/schedule");
const chat_channels_1 = require("../notifications/chat.channels");
const email_channel_1 = require("../notifications/email.channel");
const mailer_1 = require("../notifications/mailer");
const webhook_channel_1 = require("../webhooks/webhook.channel");
const webhooks_module_1 = require("../webhooks/webhooks.module");
const channel_1 = require("./channel");
const fan_out_1 = require("./fan-out");
const lease_1 = require("./lease");
const outbox_processor_1 = require("./outbox.processor");
const recorder_1 = require("./recorder");
const scheduler_1 = require("./scheduler");
const CHANNELS = [webhook_channel_1.WebhookChannel, chat_channels_1.SlackChannel, chat_channels_1.DiscordChannel, email_channel_1.EmailChannel];
let OutboxModule = class OutboxModule {
};
exports.OutboxModule = OutboxModule;
exports.OutboxModule = OutboxModule = __decorate([
    (0, common_1.Module)({
        imports: [webhooks_module_1.WebhooksModule, axios_1.HttpModule, schedule_1.ScheduleModule.forRoot()],
        providers: [
            outbox_processor_1.OutboxProcessor,
            fan_out_1.FanOut,
            scheduler_1.Scheduler,
            recorder_1.Recorder,
            lease_1.Lease,
            mailer_1.Mailer,
            email_channel_1.EmailChannel,
            { provide: channel_1.OUTBOX_CHANNELS, useFactory: (...channels) => channels, inject: CHANNELS },
        ],
        exports: [outbox_processor_1.OutboxProcessor],
    })
], OutboxModule);
//# sourceMappingURL=outbox.module.js.map