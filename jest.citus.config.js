// `npm run test:citus`: the suites that prove Chorus on Citus (the API's journey as single-shard
// queries, the API end to end, webhooks, fairness, several outbox processors), against a fresh
// database on the local cluster of ../shared/citus/cluster (a coordinator and two workers).
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
  'voter-email',
  'citus-rebalance',
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
    testTimeout: 120_000,
  };
};
