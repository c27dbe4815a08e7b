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
Object.defineProperty(exports, "__esModule", { value: true });
exports.Lease = void 0;
const node_crypto_1 = require("node:crypto");
const node_os_1 = require("node:os");
const common_1 = require("@nestjs/common");
const app_config_1 = require("../config/app-config");
let Lease = class Lease {
    owner = `${(0, node_os_1.hostname)()}:${process.pid}:${(0, node_crypto_1.randomBytes)(4).toString('hex')}`;
    ms;
    constructor(config) {
        this.ms = 2 * config.webhookTimeoutMs + 1_000;
    }
};
exports.Lease = Lease;
exports.Lease = Lease = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [Object])
], Lease);
//# sourceMappingURL=lease.js.map