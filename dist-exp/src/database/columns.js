"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.bigintToNumber = void 0;
exports.bigintToNumber = {
    to: (value) => value,
    from: (value) => (value === null ? null : Number(value)),
};
//# sourceMappingURL=columns.js.map