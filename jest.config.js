/** Three tiers: unit specs beside the code, integration specs against real databases, e2e over HTTP. */
const libs = ['sdk', 'registry', 'retrieval', 'planner', 'executor'];
/** Subpath exports (`exports` in each lib's package.json) beside the main index. */
const subpaths = { sdk: ['testing', 'sandbox'], retrieval: ['evaluation'], planner: ['evaluation'] };
const moduleNameMapper = Object.fromEntries(
  libs.flatMap((lib) => [
    [`^@toolgate/${lib}$`, `<rootDir>/libs/${lib}/src/index.ts`],
    ...(subpaths[lib] ?? []).map((sub) => [`^@toolgate/${lib}/${sub}$`, `<rootDir>/libs/${lib}/src/${sub}/index.ts`]),
  ]),
);
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] };
const common = { rootDir: __dirname, testEnvironment: '<rootDir>/test/support/node-environment.js', moduleFileExtensions: ['ts', 'js', 'json'], transform, moduleNameMapper };

module.exports = {
  // On 2 cores jest would run every file in its own process (maxWorkers 1 → in band): ~130 files of
  // native addons (ONNX, SQLite, skia) and worker threads in one process, where one crash (CI saw a
  // segfault 20 minutes in) loses the whole report. A memory limit makes jest use a child worker and
  // replace it once it grows past the limit, so state does not pile up and a crash names its file.
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{libs,apps,plugins}/*/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'int',
      setupFilesAfterEnv: ['<rootDir>/test/support/slow-tests.setup.ts'],
      testMatch: ['<rootDir>/{libs,apps}/*/src/**/*.int-spec.ts', '<rootDir>/test/integration/**/*.int-spec.ts'],
    },
    { ...common, displayName: 'e2e', setupFilesAfterEnv: ['<rootDir>/test/support/slow-tests.setup.ts'], testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    // Attacks over HTTP and WebSocket against the built server with two tenants.
    { ...common, displayName: 'security', setupFilesAfterEnv: ['<rootDir>/test/support/slow-tests.setup.ts'], testMatch: ['<rootDir>/test/security/**/*.security-spec.ts'] },
  ],
};
