import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The boundaries of lib/ (docs/architecture.md): who may import what. Each entry restricts
// the files it names; a pattern matches the import path as written.
const STORE_INSIDE = [
  '**/store/connection.js',
  '**/store/subscriptions.js',
  '**/store/docket-channels.js',
  '**/store/redis-errors.js',
  '**/store/delivery-reader.js',
  '**/store/keys.js',
  '**/store/records.js',
  '**/store/event-payloads.js',
  '**/store/redis-commands.js',
  '**/store/redis-replies.js',
  '**/store/redis-store-base.js',
  '**/store/redis-docket-store.js',
  '**/store/scripts/**',
  '**/store/memory/**',
];
const restrict = (message, group) => ({ group, message });
const noUi = restrict('the engine never imports the CLI, the dashboard or the testing kit', [
  '**/cli/**',
  '**/dashboard/**',
  '**/testing/**',
]);
const storeOnly = restrict('only store/ reaches Redis (use the DocketStore interface)', STORE_INSIDE);
const noIoredis = {
  name: 'ioredis',
  allowTypeImports: true,
  message: 'only store/ imports ioredis (the types of public options aside)',
};
/** The engine seen from the CLI, the dashboard and the testing kit, at `up` ('../' or '../../'). */
const publicOnly = (up, extra = []) =>
  restrict('use the public API (lib/public-api.ts), not the parts of the engine', [
    `${up}*.js`,
    `!${up}public-api.js`,
    ...['behaviours', 'config', 'errors', 'execution', 'explorer', 'inspection', 'interfaces'].map(
      (dir) => `${up}${dir}/**`,
    ),
    ...['observability', 'producer', 'store', 'worker'].map((dir) => `${up}${dir}/**`),
    ...extra.map((file) => `!${up}${file}`),
  ]);
const CLI_EXTRA = ['config/environment.js', 'config/defaults.js', 'store/redis-url.js'];

// A file gets the rule of the last entry that names it: each entry lists all its restrictions.
const boundaries = [
  // the engine: only store/ reaches Redis; nothing imports the CLI, the dashboard, the kit
  { files: ['lib/**/*.ts'], patterns: [noUi, storeOnly], paths: [noIoredis] },
  // the composition root makes the store
  { files: ['lib/docket.providers.ts'], patterns: [noUi] },
  // the store is request/response: it knows none of the engine's parts
  {
    files: ['lib/store/**/*.ts'],
    patterns: [
      noUi,
      restrict('store/ knows no worker, producer, metrics or tasks', [
        '**/worker/**',
        '**/worker.service.js',
        '**/scheduler.service.js',
        '**/producer/**',
        '**/inspection/**',
        '**/observability/**',
        '**/behaviours/**',
        '**/explorer/**',
        '**/execution/**',
      ]),
    ],
  },
  // the task model does not depend on what is built on it
  {
    files: ['lib/explorer/**/*.ts'],
    patterns: [
      noUi,
      storeOnly,
      restrict('behaviours/ builds on explorer/, never the reverse', ['**/behaviours/**']),
    ],
    paths: [noIoredis],
  },
  // the worker schedules through the store, not through the producer's parts
  {
    files: ['lib/worker/**/*.ts', 'lib/worker.service.ts', 'lib/scheduler.service.ts'],
    patterns: [
      noUi,
      storeOnly,
      restrict('worker/ schedules through the store', [
        '**/producer/schedule-batcher.js',
        '**/producer/request-checks.js',
      ]),
    ],
    paths: [noIoredis],
  },
  // the dashboard and the testing kit use the public API only
  { files: ['lib/dashboard/*.ts', 'lib/testing/*.ts'], patterns: [publicOnly('../', ['util/*'])] },
  { files: ['lib/dashboard/ui/*.ts'], patterns: [publicOnly('../../', ['util/*'])] },
  // the page's browser code: its own files and the types of the JSON API, nothing of Node
  {
    files: ['lib/dashboard/ui/client/**/*.ts'],
    patterns: [
      restrict('the browser code imports its own files and the API types only', [
        '../*.js',
        '../../*.js',
        '../../../**',
        '!../../dashboard-views.interface.js',
        '!../../dashboard-live.interface.js',
        '@nestjs/*',
        'node:*',
      ]),
    ],
  },
  // the CLI too, with the environment table and URL parsing it shares with the module
  { files: ['lib/cli/*.ts'], patterns: [publicOnly('../', ['util/*', ...CLI_EXTRA])] },
  { files: ['lib/cli/commands/*.ts'], patterns: [publicOnly('../../', ['util/*', ...CLI_EXTRA])] },
  { files: ['lib/index.ts'], patterns: [] },
  // only the storage contract suite looks at raw keys; other tests use the public API
  {
    files: ['test/e2e/**/*.ts', 'test/fixtures/**/*.ts', 'test/chaos/**/*.ts', 'test/utils.ts'],
    patterns: [
      restrict('only test/contract/ reads raw keys: use the public API and the read model', [
        '**/contract/raw.js',
      ]),
    ],
  },
].map(({ files, ignores, patterns, paths = [] }) => ({
  files,
  ...(ignores ? { ignores } : {}),
  rules: { 'no-restricted-imports': ['error', { patterns, paths }] },
}));

export default tseslint.config(
  { ignores: ['dist/', '.out/', 'node_modules/', 'bench/results/', '.conformance.*/', 'lib/store/scripts/lua-sources.generated.ts', 'lib/dashboard/ui/assets.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // no import cycles in lib/ (type-only references between public types aside)
    files: ['lib/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  ...boundaries,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly' } },
  },
);
