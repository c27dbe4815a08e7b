"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.updateReturning = updateReturning;
async function updateReturning(manager, sql, params) {
    const [rows] = (await manager.query(sql, params));
    return rows;
}
//# sourceMappingURL=queries.js.map