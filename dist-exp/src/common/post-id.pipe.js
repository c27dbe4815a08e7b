"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.PostIdPipe = void 0;
const common_1 = require("@nestjs/common");
const app_error_1 = require("./app-error");
let PostIdPipe = class PostIdPipe {
    transform(value) {
        const id = /^[1-9]\d{0,15}$/.test(value) ? Number(value) : NaN;
        if (!Number.isSafeInteger(id))
            throw app_error_1.AppError.notFound('post');
        return id;
    }
};
exports.PostIdPipe = PostIdPipe;
exports.PostIdPipe = PostIdPipe = __decorate([
    (0, common_1.Injectable)()
], PostIdPipe);
//# sourceMappingURL=post-id.pipe.js.map