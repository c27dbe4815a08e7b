"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CallerChanges1763790000000 = void 0;
class CallerChanges1763790000000 {
    name = 'CallerChanges1763790000000';
    async up(q) {
        await q.query(`
      CREATE FUNCTION chorus_callers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('chorus_callers', '');
        RETURN NULL;
      END $$`);
        for (const table of ['api_keys', 'workspaces']) {
            await q.query(`CREATE TRIGGER ${table}_callers_changed AFTER UPDATE OR DELETE ON ${table}
         FOR EACH STATEMENT EXECUTE FUNCTION chorus_callers_changed()`);
        }
    }
    async down(q) {
        for (const table of ['api_keys', 'workspaces'])
            await q.query(`DROP TRIGGER ${table}_callers_changed ON ${table}`);
        await q.query(`DROP FUNCTION chorus_callers_changed()`);
    }
}
exports.CallerChanges1763790000000 = CallerChanges1763790000000;
//# sourceMappingURL=1763790000000-CallerChanges.js.map