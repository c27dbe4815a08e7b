"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.EmailChannel = void 0;
const common_1 = require("@nestjs/common");
const mailer_1 = require("./mailer");
let EmailChannel = class EmailChannel {
    mailer;
    kind = 'email';
    constructor(mailer) {
        this.mailer = mailer;
    }
    async send(delivery) {
        const started = performance.now();
        const took = () => Math.round(performance.now() - started);
        try {
            await this.mailer.send(JSON.parse(delivery.body));
            return { ok: true, statusCode: 250, error: null, durationMs: took(), responseBody: null, retryAfterMs: null };
        }
        catch (error) {
            const code = error.responseCode;
            return {
                ok: false,
                statusCode: code ?? null,
                error: code ? null : 'smtp_error',
                responseBody: error.message.slice(0, 2048).replaceAll('\u0000', ''),
                durationMs: took(),
                retryAfterMs: null,
            };
        }
    }
};
exports.EmailChannel = EmailChannel;
exports.EmailChannel = EmailChannel = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [mailer_1.Mailer])
], EmailChannel);
//# sourceMappingURL=email.channel.js.map