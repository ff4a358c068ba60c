import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCode, NAMESPACE_PATTERN, namespaceOfPackage, ToolgateError } from '@toolgate/sdk';

/** The sdk this CLI ships (a workspace package, not on npm): new plugins depend on it by path unless told otherwise. */
const SDK_DIR = resolve(__dirname, '..', '..', '..', '..', 'libs', 'sdk');

/** npm's rule for a package name (lowercase, URL-safe, optional scope), at most 214 characters. */
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export interface ScaffoldOptions {
  /** The folder the plugin's own folder is made in. */
  parent: string;
  /** The `@toolgate/sdk` dependency spec; default the sdk beside this CLI (`file:`). */
  sdk?: string;
}

export interface Scaffolded {
  dir: string;
  packageName: string;
  toolId: string;
  files: string[];
}

/**
 * Writes a plugin package that builds, tests and loads on the first try: package.json with the
 * `toolgate` field, a TypeScript build, a first tool and its spec on the sdk's testing kit (Node's own
 * test runner, no other dependency), a README. Refuses a bad name, and a folder that exists and is not
 * empty (nothing is overwritten).
 */
export function scaffoldPlugin(packageName: string, options: ScaffoldOptions): Scaffolded {
  if (packageName.length > 214 || !PACKAGE_NAME.test(packageName)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `"${packageName}" is not an npm package name (lowercase letters, digits, - . _ ~, optionally @scope/)`, [
      { path: '<name>', message: 'not an npm package name' },
    ]);
  }
  const namespace = namespaceOfPackage(packageName);
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `"${namespace}" cannot be a tool namespace (${NAMESPACE_PATTERN.source})`, [{ path: '<name>', message: 'not a tool namespace' }]);
  }
  const dir = resolve(options.parent, namespace);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${dir} exists and is not empty; nothing was written`, [{ path: '--dir', message: 'folder not empty' }]);
  }
  const sdkVersion = (JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version;
  const sdk = options.sdk ?? `file:${SDK_DIR}`;
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name: packageName,
        version: '0.1.0',
        description: `Toolgate tools of ${namespace}.`,
        license: 'Apache-2.0',
        main: 'dist/index.js',
        types: 'dist/index.d.ts',
        files: ['dist'],
        exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
        keywords: ['toolgate-plugin'],
        toolgate: { sdk: `^${sdkVersion}`, tools: './dist/index.js' },
        scripts: { build: 'tsc -p tsconfig.json', test: 'npm run build && tsc -p tsconfig.test.json && node --test .test-dist/', prepack: 'npm run build' },
        // The gateway provides the sdk the plugin runs on (and checks toolgate.sdk against it): a peer, installed here only to build and test.
        peerDependencies: { '@toolgate/sdk': `^${sdkVersion}` },
        devDependencies: { '@toolgate/sdk': sdk, '@types/node': '^20.19.0', typescript: '~5.9.3' },
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          strict: true,
          declaration: true,
          esModuleInterop: true,
          skipLibCheck: true,
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
        exclude: ['src/**/*.test.ts'],
      },
      null,
      2,
    )}\n`,
    'tsconfig.test.json': `${JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: '.test-dist', declaration: false }, include: ['src'], exclude: [] }, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n.test-dist/\n',
    'src/index.ts': `import { greet } from './greet.tool';

/** The tools of this package; their ids are ${namespace}/<name>. */
export const tools = [greet];
`,
    'src/greet.tool.ts': `import { defineTool, ErrorCode, ToolgateError } from '@toolgate/sdk';

/**
 * A first tool: replace it with yours. The description says what it does, when to use it and when
 * not (retrieval and planners read it); examples are real queries with the arguments they need.
 */
export const greet = defineTool<{ name: string; language?: 'en' | 'de' }, { greeting: string }>({
  name: 'greet',
  title: 'Greet someone',
  description: 'Writes a short greeting for a person by name, in English or German. Use it for "say hello to Ada"; not for translating text.',
  category: ['text'],
  tags: ['greeting', 'hello'],
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'Who to greet' },
      language: { type: 'string', enum: ['en', 'de'], description: 'Language of the greeting (default en)' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] },
  examples: [
    { query: 'say hello to Ada', arguments: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' } },
    { query: 'greet Grace in German', arguments: { name: 'Grace', language: 'de' }, output: { greeting: 'Hallo, Grace!' } },
  ],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 16, retries: 0, idempotent: true },
  async run({ name, language = 'en' }, ctx) {
    if (ctx.signal.aborted) throw new ToolgateError(ErrorCode.CANCELLED, 'cancelled before it started');
    if (name.trim() === '') throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'name is blank', [{ path: '/name', message: 'must not be blank' }]);
    return { greeting: \`\${language === 'de' ? 'Hallo' : 'Hello'}, \${name.trim()}!\` };
  },
});
`,
    'src/greet.test.ts': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '@toolgate/sdk';
import { conformanceIssues, runTool, toolErrorOf } from '@toolgate/sdk/testing';
import { greet } from './greet.tool';

test('passes the checks the host makes on load (manifest, schemas, examples)', async () => {
  assert.deepEqual(await conformanceIssues(greet), []);
});

test('greets in English by default and in German when asked', async () => {
  assert.deepEqual(await runTool(greet, { name: 'Ada' }), { greeting: 'Hello, Ada!' });
  assert.deepEqual(await runTool(greet, { name: 'Grace', language: 'de' }), { greeting: 'Hallo, Grace!' });
});

test('refuses a blank name with a typed error naming the field', async () => {
  const error = await toolErrorOf(greet, { name: '   ' });
  assert.equal(error.code, ErrorCode.INVALID_ARGUMENTS);
  assert.equal(error.details[0]?.path, '/name');
});
`,
    'src/greet.host.test.ts': `import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCode } from '@toolgate/sdk';
import { type HostTester, hostTester } from '@toolgate/sdk/testing';

// Host mode: the built package (dist/) in a worker process, as a gateway runs it.
let host: HostTester;
before(async () => {
  host = await hostTester(join(__dirname, '..'));
});
after(() => host.close());

test('runs every example the way a gateway does', async () => {
  assert.deepEqual(await host.examples(), {});
});

test('gets only arguments its inputSchema allows', async () => {
  const error = await host.failure('greet', { name: 'Ada', language: 'fr' });
  assert.equal(error.code, ErrorCode.INVALID_ARGUMENTS);
  assert.equal(error.details[0]?.path, '/arguments/language');
});
`,
    'README.md': `# ${packageName}

Toolgate tools of \`${namespace}\` (tool ids \`${namespace}/<name>\`).

\`\`\`bash
npm install
npm run build      # dist/, what Toolgate loads
npm test           # builds, then the tools' specs on @toolgate/sdk/testing (in process and in host mode), with Node's test runner
\`\`\`

Check it the way a gateway will, publish it, and install it on a gateway:

\`\`\`bash
npx toolgate plugins validate .      # every check the gateway makes on load, and what publishing needs
npm publish
npx toolgate plugins install ${packageName}@0.1.0   # on the gateway; then reloadPlugins or a restart
\`\`\`

\`@toolgate/sdk\` is a peer dependency: the gateway provides the sdk the tools run on.
`,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { dir, packageName, toolId: `${namespace}/greet`, files: Object.keys(files) };
}
