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
exports.MergePostDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
let MergePostDto = class MergePostDto {
    into;
};
exports.MergePostDto = MergePostDto;
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 1, description: 'Another post of this workspace, not itself merged.' }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, class_validator_1.IsInt)({ message: 'must be a post id' }),
    (0, class_validator_1.IsPositive)({ message: 'must be a post id' }),
    (0, class_validator_1.Max)(Number.MAX_SAFE_INTEGER, { message: 'must be a post id' }),
    __metadata("design:type", Number)
], MergePostDto.prototype, "into", void 0);
exports.MergePostDto = MergePostDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'MergePostRequest' })
], MergePostDto);
//# sourceMappingURL=merge-post.dto.js.map