import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Source of a tool manifest as a plain object, the way a plugin without the sdk helper would write it. */
export const toolSource = (name: string, description = `Says ${name} back to the caller. Use it to test echoes; not for real work.`, extra = '') => `{
  name: ${JSON.stringify(name)},
  title: ${JSON.stringify(`Echo ${name}`)},
  description: ${JSON.stringify(description)},
  category: ['testing'],
  tags: ['echo'],
  inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'what to say' } }, required: ['text'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  examples: [{ query: 'say hello', arguments: { text: 'hello' }, output: { text: 'hello' } }],
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 1000, maxConcurrency: 4, retries: 0, idempotent: true },
  execution: 'server',
  run: async (args) => ({ text: args.text }),
  ${extra}
}`;

export interface FixturePlugin {
  /** Folder name under the plugin dir. */
  folder: string;
  packageJson: Record<string, unknown> | string;
  /** CommonJS source of the entry module. */
  entry?: string;
}

export function writePlugin(pluginDir: string, plugin: FixturePlugin): string {
  const dir = join(pluginDir, plugin.folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), typeof plugin.packageJson === 'string' ? plugin.packageJson : JSON.stringify(plugin.packageJson, null, 2));
  if (plugin.entry !== undefined) writeFileSync(join(dir, 'index.js'), plugin.entry);
  return dir;
}

export const pluginPackage = (name: string, version: string, sdk = '^0.1.0') => ({ name, version, toolgate: { sdk, tools: './index.js' } });

/** A healthy plugin `@fixtures/echo` at `version`, whose tools are `say` (and `shout` from 1.1.0 on). */
export const echoPlugin = (version: string): FixturePlugin => ({
  folder: `echo-${version}`,
  packageJson: pluginPackage('@fixtures/echo', version),
  entry: `exports.tools = [${toolSource('say', `Says the text back (version ${version}). Use it to test echoes; not for real work.`)}${version >= '1.1.0' ? `, ${toolSource('shout')}` : ''}];`,
});

/** One of each way a plugin can be broken; every one must be skipped with a reason naming the field. */
export const brokenPlugins: Record<string, { plugin: FixturePlugin; path: string }> = {
  throwsOnImport: { plugin: { folder: 'throws', packageJson: pluginPackage('@fixtures/throws', '1.0.0'), entry: "throw new Error('boom at import');" }, path: '/toolgate/tools' },
  badSemver: { plugin: { folder: 'bad-semver', packageJson: pluginPackage('@fixtures/bad-semver', '1.0'), entry: `exports.tools = [${toolSource('a')}];` }, path: '/version' },
  sdkMismatch: { plugin: { folder: 'future-sdk', packageJson: pluginPackage('@fixtures/future-sdk', '1.0.0', '^9.0.0'), entry: `exports.tools = [${toolSource('a')}];` }, path: '/toolgate/sdk' },
  malformedManifest: {
    plugin: { folder: 'malformed', packageJson: pluginPackage('@fixtures/malformed', '1.0.0'), entry: `exports.tools = [{ ...${toolSource('a')}, permissions: { scopes: [], risk: 'nuclear' } }];` },
    path: '/tools/0/permissions/risk',
  },
  schemaOutsideSubset: {
    plugin: {
      folder: 'bad-schema',
      packageJson: pluginPackage('@fixtures/bad-schema', '1.0.0'),
      entry: `exports.tools = [{ ...${toolSource('a')}, inputSchema: { type: 'object', properties: { x: { type: 'string' } }, if: { required: ['x'] } } }];`,
    },
    path: '/tools/0/inputSchema/if',
  },
  duplicateToolIds: {
    plugin: { folder: 'duplicates', packageJson: pluginPackage('@fixtures/duplicates', '1.0.0'), entry: `exports.tools = [${toolSource('same')}, ${toolSource('same')}];` },
    path: '/tools/1/name',
  },
};

/** The repo's bundled plugins, copied so a test may add packages beside them. */
export function copyBundledPlugins(repoRoot: string, target: string): void {
  cpSync(join(repoRoot, 'plugins'), target, { recursive: true, filter: (src) => !src.includes('node_modules') && !src.endsWith('.spec.ts') });
}
