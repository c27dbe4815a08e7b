"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ATTEMPT_ERRORS = void 0;
exports.ATTEMPT_ERRORS = [
    'timeout',
    'connection_refused',
    'connection_reset',
    'dns_error',
    'tls_error',
    'unsafe_target',
    'network_error',
    'smtp_error',
    'secret_unreadable',
];
//# sourceMappingURL=attempt-errors.js.map