/** Every plan's limits, in one place. */
export const PLANS = {
  free: { api: false, requestsPerMinute: 0, webhookEndpoints: 0, deliveriesPerMonth: 0, exportApi: false },
  pro: { api: true, requestsPerMinute: 60, webhookEndpoints: 5, deliveriesPerMonth: 20_000, exportApi: false },
  business: { api: true, requestsPerMinute: 300, webhookEndpoints: 25, deliveriesPerMonth: 250_000, exportApi: true },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];
export const isPlan = (value: unknown): value is Plan =>
  typeof value === 'string' && Object.hasOwn(PLANS, value);
