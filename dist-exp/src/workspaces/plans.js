"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isPlan = exports.PLAN_NAMES = exports.PLANS = void 0;
exports.PLANS = {
    free: { api: false, requestsPerMinute: 0, webhookEndpoints: 0, deliveriesPerMonth: 0 },
    pro: { api: true, requestsPerMinute: 60, webhookEndpoints: 5, deliveriesPerMonth: 20_000 },
    business: { api: true, requestsPerMinute: 300, webhookEndpoints: 25, deliveriesPerMonth: 250_000 },
};
exports.PLAN_NAMES = Object.keys(exports.PLANS);
const isPlan = (value) => typeof value === 'string' && Object.hasOwn(exports.PLANS, value);
exports.isPlan = isPlan;
//# sourceMappingURL=plans.js.map