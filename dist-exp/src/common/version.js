"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.VERSION = void 0;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
function packageVersion() {
    for (let dir = __dirname;; dir = (0, node_path_1.dirname)(dir)) {
        const file = (0, node_path_1.join)(dir, 'package.json');
        if ((0, node_fs_1.existsSync)(file))
            return JSON.parse((0, node_fs_1.readFileSync)(file, 'utf8')).version;
        if ((0, node_path_1.dirname)(dir) === dir)
            throw new Error(`No package.json above ${__dirname}`);
    }
}
exports.VERSION = packageVersion();
//# sourceMappingURL=version.js.map