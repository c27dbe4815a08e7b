"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=request-context.js.map