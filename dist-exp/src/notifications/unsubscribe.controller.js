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
exports.UnsubscribeController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const public_decorator_1 = require("../auth/public.decorator");
const unsubscribe_service_1 = require("./unsubscribe.service");
const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family:sans-serif;max-width:32em;margin:4em auto"><h1>${title}</h1>${body}</body></html>`;
let UnsubscribeController = class UnsubscribeController {
    unsubscribe;
    constructor(unsubscribe) {
        this.unsubscribe = unsubscribe;
    }
    confirm(token, res) {
        this.unsubscribe.read(token);
        res
            .type('html')
            .send(page('Stop these emails?', '<p>You get an email when a post you voted for changes status.</p>' +
            '<form method="post"><button type="submit">Unsubscribe</button></form>'));
    }
    async stop(token, res) {
        await this.unsubscribe.unsubscribe(token);
        res.type('html').send(page('Unsubscribed', '<p>You will get no more emails about posts you voted for from this board’s team.</p>'));
    }
};
exports.UnsubscribeController = UnsubscribeController;
__decorate([
    (0, common_1.Get)(':token'),
    __param(0, (0, common_1.Param)('token')),
    __param(1, (0, common_1.Res)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [String, Object]),
    __metadata("design:returntype", void 0)
], UnsubscribeController.prototype, "confirm", null);
__decorate([
    (0, common_1.Post)(':token'),
    (0, common_1.HttpCode)(200),
    __param(0, (0, common_1.Param)('token')),
    __param(1, (0, common_1.Res)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [String, Object]),
    __metadata("design:returntype", Promise)
], UnsubscribeController.prototype, "stop", null);
exports.UnsubscribeController = UnsubscribeController = __decorate([
    (0, swagger_1.ApiExcludeController)(),
    (0, public_decorator_1.Public)(),
    (0, common_1.Controller)('email/unsubscribe'),
    __metadata("design:paramtypes", [unsubscribe_service_1.UnsubscribeService])
], UnsubscribeController);
//# sourceMappingURL=unsubscribe.controller.js.map