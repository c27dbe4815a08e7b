"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhooksModule = void 0;
const axios_1 = require("@nestjs/axios");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const deliveries_controller_1 = require("./deliveries.controller");
const deliveries_service_1 = require("./deliveries.service");
const delivery_attempt_entity_1 = require("./delivery-attempt.entity");
const endpoint_tools_service_1 = require("./endpoint-tools.service");
const endpoints_controller_1 = require("./endpoints.controller");
const endpoints_service_1 = require("./endpoints.service");
const events_service_1 = require("./events.service");
const name_resolver_1 = require("./name-resolver");
const outbox_event_entity_1 = require("./outbox-event.entity");
const webhook_delivery_entity_1 = require("./webhook-delivery.entity");
const webhook_endpoint_entity_1 = require("./webhook-endpoint.entity");
const webhook_sender_1 = require("./webhook-sender");
const webhook_channel_1 = require("./webhook.channel");
const chat_channels_1 = require("../notifications/chat.channels");
const quota_1 = require("../outbox/quota");
let WebhooksModule = class WebhooksModule {
};
exports.WebhooksModule = WebhooksModule;
exports.WebhooksModule = WebhooksModule = __decorate([
    (0, common_1.Module)({
        imports: [
            typeorm_1.TypeOrmModule.forFeature([outbox_event_entity_1.OutboxEventEntity, webhook_endpoint_entity_1.WebhookEndpointEntity, webhook_delivery_entity_1.WebhookDeliveryEntity, delivery_attempt_entity_1.DeliveryAttemptEntity]),
            axios_1.HttpModule,
        ],
        controllers: [endpoints_controller_1.EndpointsController, deliveries_controller_1.DeliveriesController],
        providers: [
            events_service_1.EventsService,
            endpoints_service_1.EndpointsService,
            deliveries_service_1.DeliveriesService,
            name_resolver_1.nameResolverProvider,
            endpoint_tools_service_1.EndpointToolsService,
            webhook_sender_1.WebhookSender,
            webhook_channel_1.WebhookChannel,
            chat_channels_1.SlackChannel,
            chat_channels_1.DiscordChannel,
            quota_1.Quota,
        ],
        exports: [
            events_service_1.EventsService,
            endpoints_service_1.EndpointsService,
            deliveries_service_1.DeliveriesService,
            name_resolver_1.NameResolver,
            webhook_sender_1.WebhookSender,
            webhook_channel_1.WebhookChannel,
            chat_channels_1.SlackChannel,
            chat_channels_1.DiscordChannel,
            quota_1.Quota,
        ],
    })
], WebhooksModule);
//# sourceMappingURL=webhooks.module.js.map