"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.emailBody = void 0;
exports.endpointBody = endpointBody;
exports.statusChangeForVoters = statusChangeForVoters;
const chat_messages_1 = require("../notifications/chat-messages");
const voter_email_1 = require("../notifications/voter-email");
function endpointBody(kind, deliveryId, event) {
    if (kind === 'slack')
        return JSON.stringify((0, chat_messages_1.slackMessage)({ type: event.type, data: JSON.parse(event.data) }));
    if (kind === 'discord') {
        return JSON.stringify((0, chat_messages_1.discordMessage)({ type: event.type, data: JSON.parse(event.data) }));
    }
    return `{"id":${JSON.stringify(deliveryId)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.created_at.toISOString())},"data":${event.data}}`;
}
function statusChangeForVoters(event) {
    if (event.type !== 'post.status_changed')
        return null;
    const data = JSON.parse(event.data);
    return (0, voter_email_1.isRealStatusChange)(data) ? data : null;
}
const emailBody = (data, to, unsubscribeUrl) => JSON.stringify((0, voter_email_1.voterEmail)(data, to, unsubscribeUrl));
exports.emailBody = emailBody;
//# sourceMappingURL=messages.js.map