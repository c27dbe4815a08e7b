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
exports.VoteDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const create_post_dto_1 = require("./create-post.dto");
let VoteDto = class VoteDto {
    voter;
};
exports.VoteDto = VoteDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({
        type: create_post_dto_1.AuthorDto,
        description: 'Who votes, by the rules of a post\'s `author`: a known email (any case) is that person; otherwise a new guest ' +
            'with that name (and email). Omitted: the key\'s creator. Removing a vote needs the email.',
    }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsObject)({ message: 'must be an object' }),
    (0, class_validator_1.ValidateNested)(),
    (0, class_transformer_1.Type)(() => create_post_dto_1.AuthorDto),
    __metadata("design:type", create_post_dto_1.AuthorDto)
], VoteDto.prototype, "voter", void 0);
exports.VoteDto = VoteDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'VoteRequest' })
], VoteDto);
//# sourceMappingURL=vote.dto.js.map