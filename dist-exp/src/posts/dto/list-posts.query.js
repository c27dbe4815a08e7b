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
exports.ListPostsQuery = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const page_query_1 = require("../../common/page.query");
const validation_1 = require("../../common/validation");
const post_entity_1 = require("../post.entity");
class ListPostsQuery extends page_query_1.PageQuery {
    board;
    status;
    q;
    sort;
    include_merged;
}
exports.ListPostsQuery = ListPostsQuery;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ description: 'A board slug. Default: every board.' }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)({ message: 'must be a single board slug' }),
    __metadata("design:type", String)
], ListPostsQuery.prototype, "board", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: post_entity_1.POST_STATUSES }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsIn)(post_entity_1.POST_STATUSES, { message: `must be one of ${post_entity_1.POST_STATUSES.join(', ')}` }),
    __metadata("design:type", String)
], ListPostsQuery.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ maxLength: 200, description: 'Terms that must all occur in the title or body, ignoring case.' }),
    (0, class_validator_1.IsOptional)(),
    (0, validation_1.Trim)(),
    (0, class_validator_1.IsString)({ message: 'must be a single string' }),
    (0, validation_1.HasLength)(0, 200),
    __metadata("design:type", String)
], ListPostsQuery.prototype, "q", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: ['new', 'top'], default: 'new' }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsIn)(['new', 'top'], { message: 'must be new or top' }),
    __metadata("design:type", String)
], ListPostsQuery.prototype, "sort", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: ['true', 'false'], default: 'false', description: 'Include posts merged into others.' }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsIn)(['true', 'false'], { message: 'must be true or false' }),
    __metadata("design:type", String)
], ListPostsQuery.prototype, "include_merged", void 0);
//# sourceMappingURL=list-posts.query.js.map