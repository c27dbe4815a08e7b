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
exports.CreatePostDto = exports.AuthorDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const openapi_1 = require("../../common/openapi");
const validation_1 = require("../../common/validation");
const post_entity_1 = require("../post.entity");
let AuthorDto = class AuthorDto {
    name;
    email;
};
exports.AuthorDto = AuthorDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ minLength: 1, maxLength: 100, description: 'Required unless the email is known.' }),
    (0, class_validator_1.ValidateIf)((author, name) => name !== undefined || author.email === undefined),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    (0, validation_1.HasLength)(1, 100),
    __metadata("design:type", String)
], AuthorDto.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ format: 'email', description: 'A known email (any case) posts as that person.' }),
    (0, validation_1.Optional)('a string'),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    (0, class_validator_1.IsEmail)({}, { message: 'must be a valid email address' }),
    __metadata("design:type", String)
], AuthorDto.prototype, "email", void 0);
exports.AuthorDto = AuthorDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'PostAuthor', description: 'A `name`, or an `email`: a known email (any case) posts as that person and `name` is ignored; otherwise a guest with that name (and email) is created.' }),
    (0, openapi_1.RequireOneOf)('name', 'email')
], AuthorDto);
let CreatePostDto = class CreatePostDto {
    board;
    title;
    body;
    category;
    author;
};
exports.CreatePostDto = CreatePostDto;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Board slug.', example: 'feedback' }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    __metadata("design:type", String)
], CreatePostDto.prototype, "board", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points, after trimming).' }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    (0, validation_1.HasLength)(4, 120),
    __metadata("design:type", String)
], CreatePostDto.prototype, "title", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ maxLength: 5000, description: 'Up to 5,000 characters. Default: `""`.' }),
    (0, validation_1.Optional)('a string'),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    (0, validation_1.HasLength)(0, 5000),
    __metadata("design:type", String)
], CreatePostDto.prototype, "body", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: post_entity_1.POST_CATEGORIES, description: 'Default: `feature`.' }),
    (0, validation_1.Optional)('a string'),
    (0, class_validator_1.IsIn)(post_entity_1.POST_CATEGORIES, { message: `must be one of ${post_entity_1.POST_CATEGORIES.join(', ')}` }),
    __metadata("design:type", String)
], CreatePostDto.prototype, "category", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: AuthorDto, description: 'Omitted: the post is authored as the key creator.' }),
    (0, validation_1.Optional)('an object'),
    (0, class_validator_1.IsObject)({ message: 'must be an object' }),
    (0, class_validator_1.ValidateNested)(),
    (0, class_transformer_1.Type)(() => AuthorDto),
    __metadata("design:type", AuthorDto)
], CreatePostDto.prototype, "author", void 0);
exports.CreatePostDto = CreatePostDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'CreatePostRequest' })
], CreatePostDto);
//# sourceMappingURL=create-post.dto.js.map