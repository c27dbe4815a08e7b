"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SHUTDOWN_LIMIT_MS = void 0;
exports.closeOnSignals = closeOnSignals;
exports.stopListening = stopListening;
const common_1 = require("@nestjs/common");
exports.SHUTDOWN_LIMIT_MS = 15_000;
function closeOnSignals(close) {
    const logger = new common_1.Logger('Shutdown');
    let stopping = false;
    const stop = async (signal) => {
        if (stopping)
            return;
        stopping = true;
        logger.log(`${signal}: finishing what is in flight, then stopping.`);
        setTimeout(() => {
            logger.error(`Still not stopped after ${exports.SHUTDOWN_LIMIT_MS / 1000} s; exiting.`);
            process.exit(1);
        }, exports.SHUTDOWN_LIMIT_MS).unref();
        try {
            await close();
            process.exit(0);
        }
        catch (error) {
            logger.error(`Shutdown failed: ${error.stack}`);
            process.exit(1);
        }
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
}
function stopListening(server) {
    return new Promise((resolve) => {
        server.prependListener('request', (_req, res) => {
            if (!res.headersSent)
                res.setHeader('Connection', 'close');
        });
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
            clearInterval(sweep);
            resolve();
        });
        server.closeIdleConnections();
    });
}
//# sourceMappingURL=shutdown.js.map