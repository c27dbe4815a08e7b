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
exports.UpdatePostDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const post_entity_1 = require("../post.entity");
let UpdatePostDto = class UpdatePostDto {
    status;
};
exports.UpdatePostDto = UpdatePostDto;
__decorate([
    (0, swagger_1.ApiProperty)({ enum: post_entity_1.POST_STATUSES }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, class_validator_1.IsIn)(post_entity_1.POST_STATUSES, { message: `must be one of ${post_entity_1.POST_STATUSES.join(', ')}` }),
    __metadata("design:type", String)
], UpdatePostDto.prototype, "status", void 0);
exports.UpdatePostDto = UpdatePostDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'UpdatePostRequest' })
], UpdatePostDto);
//# sourceMappingURL=update-post.dto.js.map