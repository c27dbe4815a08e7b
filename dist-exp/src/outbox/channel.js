"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isChat = exports.OUTBOX_CHANNELS = void 0;
exports.OUTBOX_CHANNELS = Symbol('OUTBOX_CHANNELS');
const isChat = (kind) => kind === 'slack' || kind === 'discord';
exports.isChat = isChat;
//# sourceMappingURL=channel.js.map