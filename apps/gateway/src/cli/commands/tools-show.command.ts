import type { Command } from 'commander';
import { keyOption, withCatalog } from '../cli.options';
import { printJson } from '../cli.output';

/** `toolgate tools show <id>`: what a tool author or caller needs to call it: description, schemas, examples, limits, versions. */
export function registerToolsShowCommand(tools: Command): void {
  tools
    .command('show <tool>')
    .description('one tool (namespace/name, or namespace/name@version): description, input and output schema, examples, permissions, limits, versions')
    .addOption(keyOption())
    .option('--json', 'print JSON only')
    .action(async (ref: string, options: { key?: string; json?: boolean }) => {
      await withCatalog(options.key, async ({ catalog, principal }) => {
        // The version a call would get; a tool the caller may not discover is TOOL_NOT_FOUND, like one that does not exist.
        const { tool, version } = catalog.resolve(ref, principal);
        const { descriptor } = version;
        const view = {
          id: tool.id,
          version: version.version,
          state: version.state,
          title: descriptor.title,
          description: descriptor.description,
          category: descriptor.category,
          tags: descriptor.tags,
          permissions: descriptor.permissions,
          limits: descriptor.limits,
          ...(descriptor.fallback ? { fallback: descriptor.fallback } : {}),
          inputSchema: descriptor.inputSchema,
          outputSchema: descriptor.outputSchema,
          examples: descriptor.examples,
          versions: tool.versions.map((v) => ({ version: v.version, state: v.state })),
        };
        if (options.json) return printJson(view);
        const json = (value: unknown) => JSON.stringify(value, null, 2).replace(/\n/g, '\n  ');
        process.stdout.write(
          [
            `${view.id}@${view.version} (${view.state}): ${view.title}`,
            '',
            view.description,
            '',
            `risk: ${view.permissions.risk}${view.permissions.requiresApproval ? ', needs approval' : ''}; scopes: ${view.permissions.scopes.join(', ') || 'none'}`,
            `limits: timeout ${view.limits.timeoutMs} ms, ${view.limits.retries} retries, at most ${view.limits.maxConcurrency} at once, ${view.limits.idempotent ? 'idempotent' : 'not idempotent'}`,
            ...(view.fallback ? [`fallback: ${view.fallback}`] : []),
            `versions: ${view.versions.map((v) => `${v.version} ${v.state}`).join(', ')}`,
            '',
            `input schema:\n  ${json(view.inputSchema)}`,
            `output schema:\n  ${json(view.outputSchema)}`,
            `examples:${view.examples.length === 0 ? ' none' : ''}`,
            ...view.examples.map((e) => `  "${e.query}"\n    arguments: ${JSON.stringify(e.arguments)}${e.output !== undefined ? `\n    output: ${JSON.stringify(e.output)}` : ''}`),
            '',
          ].join('\n'),
        );
      });
    });
}
