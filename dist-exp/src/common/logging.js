"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.NestPinoLogger = void 0;
exports.createLogger = createLogger;
exports.requestLog = requestLog;
const pino_1 = __importDefault(require("pino"));
function createLogger(level) {
    return (0, pino_1.default)({ level });
}
class NestPinoLogger {
    pino;
    constructor(pino) {
        this.pino = pino;
    }
    log(message, ...rest) {
        this.write('info', message, rest);
    }
    error(message, ...rest) {
        const [stack, ...others] = rest;
        if (typeof stack === 'string' && stack.includes('\n'))
            return this.write('error', message, others, { stack });
        this.write('error', message, rest);
    }
    warn(message, ...rest) {
        this.write('warn', message, rest);
    }
    debug(message, ...rest) {
        this.write('debug', message, rest);
    }
    verbose(message, ...rest) {
        this.write('trace', message, rest);
    }
    fatal(message, ...rest) {
        this.write('fatal', message, rest);
    }
    setLogLevels(_levels) { }
    write(level, message, rest, fields = {}) {
        if (!this.pino.isLevelEnabled(level))
            return;
        const context = typeof rest[rest.length - 1] === 'string' ? rest[rest.length - 1] : undefined;
        if (message instanceof Error) {
            this.pino[level]({ context, ...fields, err: message }, message.message);
        }
        else if (typeof message === 'object' && message !== null) {
            this.pino[level]({ context, ...fields, ...message });
        }
        else {
            this.pino[level]({ context, ...fields }, String(message));
        }
    }
}
exports.NestPinoLogger = NestPinoLogger;
function requestLog(logger) {
    return (req, res, next) => {
        const started = performance.now();
        let logged = false;
        const done = () => {
            if (logged)
                return;
            logged = true;
            const status = res.statusCode;
            const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
            if (!logger.isLevelEnabled(level))
                return;
            const line = {
                req: { id: req.id, method: req.method, url: req.originalUrl },
                res: { statusCode: status },
                responseTime: Math.round(performance.now() - started),
            };
            if (req.caller)
                line.workspace_id = req.caller.workspaceId;
            logger[level](line, res.writableFinished ? 'request completed' : 'request aborted');
        };
        res.once('finish', done);
        res.once('close', done);
        next();
    };
}
//# sourceMappingURL=logging.js.map