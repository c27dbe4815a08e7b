// Apart from webhook-sender: the API's mappers and the CLI read it without loading the sender.
/**
 * Every class of failure an attempt records when there was no usable answer; typed, so that
 * a new class cannot be recorded without being documented (the API's attempt `error`).
 */
export const ATTEMPT_ERRORS = [
  'timeout',
  'connection_refused',
  'connection_reset',
  'dns_error',
  'tls_error',
  'unsafe_target',
  'network_error',
  'smtp_error',
  'secret_unreadable',
] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];
