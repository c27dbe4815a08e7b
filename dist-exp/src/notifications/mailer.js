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
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.Mailer = exports.MAIL_FROM = void 0;
const node_crypto_1 = require("node:crypto");
const promises_1 = require("node:fs/promises");
const node_path_1 = require("node:path");
const common_1 = require("@nestjs/common");
const nodemailer_1 = __importDefault(require("nodemailer"));
const app_config_1 = require("../config/app-config");
exports.MAIL_FROM = 'Chorus <notifications@chorus.invalid>';
let Mailer = class Mailer {
    transport;
    folder;
    constructor(config) {
        if (config.smtpUrl) {
            const timeout = config.webhookTimeoutMs;
            this.transport = nodemailer_1.default.createTransport({ url: config.smtpUrl, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout }, { from: exports.MAIL_FROM });
            this.folder = null;
        }
        else {
            this.transport = nodemailer_1.default.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
            this.folder = (0, node_path_1.join)(config.dataDir, 'mail');
        }
    }
    async send(message) {
        const info = await this.transport.sendMail({ from: exports.MAIL_FROM, ...message });
        if (this.folder) {
            await (0, promises_1.mkdir)(this.folder, { recursive: true });
            const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${(0, node_crypto_1.randomUUID)().slice(0, 8)}.eml`;
            await (0, promises_1.writeFile)((0, node_path_1.join)(this.folder, name), info.message);
        }
    }
    close() {
        this.transport.close();
    }
};
exports.Mailer = Mailer;
exports.Mailer = Mailer = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [Object])
], Mailer);
//# sourceMappingURL=mailer.js.map