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
exports.CreateCommentDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const validation_1 = require("../../common/validation");
let CreateCommentDto = class CreateCommentDto {
    body;
};
exports.CreateCommentDto = CreateCommentDto;
__decorate([
    (0, swagger_1.ApiProperty)({ minLength: 1, maxLength: 2000 }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    (0, validation_1.HasLength)(1, 2000),
    __metadata("design:type", String)
], CreateCommentDto.prototype, "body", void 0);
exports.CreateCommentDto = CreateCommentDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'CreateCommentRequest' })
], CreateCommentDto);
//# sourceMappingURL=create-comment.dto.js.map