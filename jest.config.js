// Tests run on a real PostgreSQL when one is configured (DATABASE_URL) or answers on
// 127.0.0.1:5432, and on the embedded PGlite otherwise; test/support/global-setup.js says which.
const { probeDatabase, probeRedis } = require('./test/support/database-probe');

/** @nestjs/* and a few of their helpers ship only ES modules: swc turns them into CommonJS. */
const esmPackages = [
  '@nestjs', 'file-type', 'strtok3', 'token-types', '@tokenizer', '@borewit', 'uint8array-extras',
  '@electric-sql', 'ansis', 'libphonenumber-js', 'jose',
];

const swc = (tsx) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true, tsx },
      transform: {
        legacyDecorator: true,
        decoratorMetadata: true,
        // The pages' JSX, as tsconfig.json compiles it: h(tag, props, ...children).
        react: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' },
      },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = async () => {
  const database = await probeDatabase();
  process.env.CHORUS_TEST_DATABASE = JSON.stringify(database);
  process.env.CHORUS_TEST_REDIS_URL = (await probeRedis()) ?? '';
  return {
    rootDir: __dirname,
    testMatch: ['<rootDir>/test/**/*.spec.ts'],
    transform: { '^.+\\.tsx$': swc(true), '^.+\\.(t|j|mj)s$': swc(false) },
    transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
    moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
    testEnvironment: 'node',
    // The widget's scripts are served as their functions' text: counters put in by coverage would break them.
    coveragePathIgnorePatterns: ['/node_modules/', '<rootDir>/src/web/widget/'],
    globalSetup: '<rootDir>/test/support/global-setup.js',
    globalTeardown: '<rootDir>/test/support/global-teardown.js',
    // PGlite is a single session: tests on it run one file at a time.
    maxWorkers: database.kind === 'postgres' ? 2 : 1,
    testTimeout: 60_000,
    verbose: true,
    reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  };
};
