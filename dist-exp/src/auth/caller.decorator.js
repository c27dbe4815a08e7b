"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CurrentCaller = void 0;
const common_1 = require("@nestjs/common");
exports.CurrentCaller = (0, common_1.createParamDecorator)((_, context) => context.switchToHttp().getRequest().caller);
//# sourceMappingURL=caller.decorator.js.map