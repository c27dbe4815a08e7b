// `npm run test:citus`: the suites that prove Chorus on Citus (the API's journey as single-shard
// queries, the API end to end, webhooks, voter emails, fairness, several outbox processors, a
// worker added and shards rebalanced under load, the public site and the dashboard over HTTP,
// lookalike addresses and sign-ins used once, blocking and refused sign-ins, similar posts),
// against a fresh database on the local cluster of ../shared/citus/cluster (a coordinator and two
// workers). About 70 s on this 2-core machine, two files at a time as `npm test` runs them (three
// at a time overloaded it: three PostgreSQL servers and the processors share its two cores). The
// browser suites are left out (half a minute each; the pages they drive are tested over HTTP).
const base = require('./jest.config');
const coordinatorPort = () => Number(process.env.CITUS_PORT || 9700);

const SUITES = [
  'citus-router',
  'posts',
  'comments',
  'votes',
  'listing',
  'idempotency',
  'auth',
  'webhooks',
  'endpoint-changes',
  'fairness',
  'outbox-processors',
  'outbox-many-queues',
  'outbox-ready-queue',
  'voter-email',
  'citus-rebalance',
  'site',
  'admin',
  'addresses',
  'sign-in-replay',
  'changelog',
  'transfer',
  'moderation',
  'moderation-blocking',
  'similar-posts',
];

module.exports = async () => {
  process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${coordinatorPort()}/postgres`;
  process.env.CHORUS_TEST_REQUIRE_POSTGRES = 'true';
  const config = await base();
  return {
    ...config,
    testMatch: SUITES.map((name) => `<rootDir>/test/${name}.e2e.spec.ts`),
    globalSetup: '<rootDir>/test/support/citus-global-setup.ts',
    globalTeardown: '<rootDir>/test/support/citus-global-teardown.ts',
    // The export and import round trip takes 44 s to over 120 s on a slow 2-core machine (three
    // PostgreSQL servers, the service and the CLI's processes sharing it); a test's own waits
    // still say what they wait for.
    testTimeout: 300_000,
  };
};
