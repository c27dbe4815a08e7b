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
exports.BoardResponse = void 0;
exports.toBoardResponse = toBoardResponse;
const swagger_1 = require("@nestjs/swagger");
let BoardResponse = class BoardResponse {
    id;
    slug;
    name;
    description;
    public;
    url;
};
exports.BoardResponse = BoardResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'uuid', description: 'Identifier of the board.' }),
    __metadata("design:type", String)
], BoardResponse.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'feedback', description: 'Short name used in the `board` parameter.' }),
    __metadata("design:type", String)
], BoardResponse.prototype, "slug", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'Feedback' }),
    __metadata("design:type", String)
], BoardResponse.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: String, nullable: true }),
    __metadata("design:type", Object)
], BoardResponse.prototype, "description", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'False for private boards.' }),
    __metadata("design:type", Boolean)
], BoardResponse.prototype, "public", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'https://feedback.example.com/acme/feedback', description: 'Public address of the board.' }),
    __metadata("design:type", String)
], BoardResponse.prototype, "url", void 0);
exports.BoardResponse = BoardResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Board' })
], BoardResponse);
function toBoardResponse(board, workspaceSlug, links) {
    return {
        id: board.id,
        slug: board.slug,
        name: board.name,
        description: board.description,
        public: board.public,
        url: links.board(workspaceSlug, board.slug),
    };
}
//# sourceMappingURL=board.mapper.js.map