"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.httpMetrics = httpMetrics;
function httpMetrics(metrics) {
    return (req, res, next) => {
        const end = metrics.httpDuration.startTimer();
        res.on('finish', () => {
            const path = req.route?.path;
            const route = typeof path === 'string' && path && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
            end({ method: req.method, route, status: String(res.statusCode) });
        });
        next();
    };
}
//# sourceMappingURL=http-metrics.middleware.js.map