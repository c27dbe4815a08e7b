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
exports.toPage = exports.PageQuery = void 0;
exports.pageOf = pageOf;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const validation_1 = require("./validation");
class PageQuery {
    limit;
    offset;
}
exports.PageQuery = PageQuery;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 1, maximum: 100, default: 25 }),
    (0, class_validator_1.IsOptional)(),
    (0, validation_1.IsIntegerString)(1, 100),
    __metadata("design:type", String)
], PageQuery.prototype, "limit", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 0, default: 0, description: 'Pass the previous page\'s `next_offset`.' }),
    (0, class_validator_1.IsOptional)(),
    (0, validation_1.IsIntegerString)(0, Number.MAX_SAFE_INTEGER),
    __metadata("design:type", String)
], PageQuery.prototype, "offset", void 0);
const toPage = (query) => ({
    limit: query.limit === undefined ? 25 : Number(query.limit),
    offset: query.offset === undefined ? 0 : Number(query.offset),
});
exports.toPage = toPage;
function pageOf(rows, page) {
    const hasMore = rows.length > page.limit;
    const data = rows.slice(0, page.limit);
    return { data, has_more: hasMore, next_offset: hasMore ? page.offset + data.length : null };
}
//# sourceMappingURL=page.query.js.map