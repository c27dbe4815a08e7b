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
exports.PersonEntity = void 0;
const typeorm_1 = require("typeorm");
let PersonEntity = class PersonEntity {
    workspaceId;
    id;
    kind;
    name;
    email;
    createdAt;
};
exports.PersonEntity = PersonEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], PersonEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], PersonEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], PersonEntity.prototype, "kind", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], PersonEntity.prototype, "name", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', nullable: true }),
    __metadata("design:type", Object)
], PersonEntity.prototype, "email", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], PersonEntity.prototype, "createdAt", void 0);
exports.PersonEntity = PersonEntity = __decorate([
    (0, typeorm_1.Entity)('people')
], PersonEntity);
//# sourceMappingURL=person.entity.js.map