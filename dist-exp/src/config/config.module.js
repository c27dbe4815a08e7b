"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var ConfigModule_1;
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigModule = void 0;
const common_1 = require("@nestjs/common");
const database_1 = require("../database/database");
const secret_box_1 = require("../common/secret-box");
const app_config_1 = require("./app-config");
const encryption_key_1 = require("./encryption-key");
const links_1 = require("./links");
let ConfigModule = ConfigModule_1 = class ConfigModule {
    static forRoot(config, database) {
        return {
            module: ConfigModule_1,
            providers: [
                { provide: app_config_1.APP_CONFIG, useValue: config },
                { provide: database_1.DATABASE_TARGET, useValue: database },
                { provide: secret_box_1.SecretBox, useValue: new secret_box_1.SecretBox((0, encryption_key_1.encryptionKey)(config, database)) },
                links_1.Links,
            ],
            exports: [app_config_1.APP_CONFIG, database_1.DATABASE_TARGET, secret_box_1.SecretBox, links_1.Links],
        };
    }
};
exports.ConfigModule = ConfigModule;
exports.ConfigModule = ConfigModule = ConfigModule_1 = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({})
], ConfigModule);
//# sourceMappingURL=config.module.js.map