const net = require('node:net');

const LOCAL_POSTGRES = 'postgresql://postgres@127.0.0.1:5432/postgres';

function reachable(host, port, timeoutMs) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Which database the tests use: DATABASE_URL's server when set, else a PostgreSQL on
 * 127.0.0.1:5432 when one answers, else the embedded PGlite (CHORUS_TEST_EMBEDDED=true forces it). CHORUS_TEST_REQUIRE_POSTGRES=true
 * (CI) turns the fallback into an error.
 */
async function probeDatabase() {
  if (process.env.CHORUS_TEST_EMBEDDED === 'true') return { kind: 'embedded' };
  if (process.env.DATABASE_URL) return { kind: 'postgres', serverUrl: process.env.DATABASE_URL };
  if (await reachable('127.0.0.1', 5432, 1000)) return { kind: 'postgres', serverUrl: LOCAL_POSTGRES };
  if (process.env.CHORUS_TEST_REQUIRE_POSTGRES === 'true') {
    throw new Error('CHORUS_TEST_REQUIRE_POSTGRES is set but no PostgreSQL answers (set DATABASE_URL).');
  }
  return { kind: 'embedded' };
}

/** The Redis the tests may share: REDIS_URL, else one answering on 127.0.0.1:6379, else none. */
async function probeRedis() {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const { hostname, port } = new URL(url);
  if (await reachable(hostname, Number(port || 6379), 1000)) return url;
  if (process.env.CHORUS_TEST_REQUIRE_REDIS === 'true') {
    throw new Error(`CHORUS_TEST_REQUIRE_REDIS is set but no Redis answers at ${url}.`);
  }
  return null;
}

module.exports = { probeDatabase, probeRedis };
