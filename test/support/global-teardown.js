const { Client } = require('pg');

module.exports = async () => {
  if (globalThis.__chorusEmbeddedDb) {
    const child = globalThis.__chorusEmbeddedDb;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  }
  if (globalThis.__chorusTestDatabase) {
    const { serverUrl, name } = globalThis.__chorusTestDatabase;
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
};
