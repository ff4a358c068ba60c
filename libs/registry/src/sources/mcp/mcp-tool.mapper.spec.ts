import { TOOL_NAME_PATTERN, type ToolManifest } from '@toolgate/sdk';
import type { McpServerConfig } from './mcp-servers.config';
import { CONTENT_OUTPUT_SCHEMA, catalogName, type MappedTool, type McpToolListing, mapMcpTool, normalizeSchema, riskOf } from './mcp-tool.mapper';

/** A server entry as parseMcpServers fills it in, with the fields a test cares about overridden. */
const server = (overrides: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ command: 'node', args: [], env: {}, trust: 'untrusted', timeoutMs: 30_000, maxConcurrency: 8, retries: 1, isolation: 'tenant', enabled: true, ...overrides }) as McpServerConfig;

const echo: McpToolListing = {
  name: 'echo',
  description: 'Echoes back the input message unchanged',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

const mapped = (tool: McpToolListing, config = server(), index = 0): MappedTool => {
  const result = mapMcpTool(tool, 'everything', config, index);
  if ('issues' in result) throw new Error(`expected a manifest, got ${JSON.stringify(result.issues)}`);
  return result;
};
const manifestOf = (tool: McpToolListing, config = server()): ToolManifest => mapped(tool, config).manifest;
const issuesOf = (tool: McpToolListing, index = 0) => {
  const result = mapMcpTool(tool, 'everything', server(), index);
  if (!('issues' in result)) throw new Error('expected the tool to be refused');
  return result.issues;
};

describe('riskOf', () => {
  const untrusted = server();
  const trusted = server({ trust: 'trusted' });

  it('reads a tool without annotations as destructive, as the MCP spec defaults say', () => {
    expect(riskOf(undefined, untrusted)).toBe('destructive');
    expect(riskOf({}, trusted)).toBe('destructive');
    expect(riskOf({ readOnlyHint: false, destructiveHint: true }, trusted)).toBe('destructive');
  });

  it('does not believe an untrusted server that a tool is read-only', () => {
    expect(riskOf({ readOnlyHint: true }, untrusted)).toBe('write');
    expect(riskOf({ destructiveHint: false }, untrusted)).toBe('write');
  });

  it('believes a trusted server', () => {
    expect(riskOf({ readOnlyHint: true }, trusted)).toBe('read');
    expect(riskOf({ destructiveHint: false }, trusted)).toBe('write');
  });

  it("takes the operator's risk as a floor that annotations never lower", () => {
    expect(riskOf({ readOnlyHint: true }, server({ trust: 'trusted', risk: 'write' }))).toBe('write');
    expect(riskOf({ readOnlyHint: true }, server({ risk: 'destructive' }))).toBe('destructive');
    expect(riskOf({ destructiveHint: false }, server({ trust: 'trusted', risk: 'destructive' }))).toBe('destructive');
  });

  it('keeps the untrusted floor when the operator sets a lower risk', () => {
    expect(riskOf({ readOnlyHint: true }, server({ risk: 'read' }))).toBe('write');
    expect(riskOf({ readOnlyHint: true }, server({ trust: 'trusted', risk: 'read' }))).toBe('read');
  });

  it('lets annotations raise the risk above the floor', () => {
    expect(riskOf({ destructiveHint: true }, server({ trust: 'trusted', risk: 'write' }))).toBe('destructive');
  });
});

describe('catalogName', () => {
  it.each([
    ['GetWeather', 'getweather'],
    ['fs.read_file', 'fs_read_file'],
    ['get weather/now', 'get_weather_now'],
    ['1password', 't_1password'],
    ['_private', 't__private'],
    ['échelle', 't__chelle'],
    ['already-fine_1', 'already-fine_1'],
  ])('maps %j to %j', (mcpName, expected) => {
    expect(catalogName(mcpName)).toBe(expected);
    expect(catalogName(mcpName)).toMatch(TOOL_NAME_PATTERN);
  });

  it('cuts at 64 characters, the prefix included', () => {
    expect(catalogName('a'.repeat(100))).toBe('a'.repeat(64));
    const prefixed = catalogName(`9${'x'.repeat(100)}`);
    expect(prefixed).toHaveLength(64);
    expect(prefixed).toBe(`t_9${'x'.repeat(61)}`);
    expect(prefixed).toMatch(TOOL_NAME_PATTERN);
  });
});

describe('normalizeSchema', () => {
  it('reads a zod-to-json-schema draft-07 schema as 2020-12: $schema dropped, definitions as $defs, $ref rewritten', () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { at: { $ref: '#/definitions/Point' }, path: { type: 'array', items: { $ref: '#/definitions/Point' } } },
      required: ['at'],
      additionalProperties: false,
      definitions: { Point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
    };
    expect(normalizeSchema(draft07)).toEqual({
      type: 'object',
      properties: { at: { $ref: '#/$defs/Point' }, path: { type: 'array', items: { $ref: '#/$defs/Point' } } },
      required: ['at'],
      additionalProperties: false,
      $defs: { Point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
    });
  });

  it('rewrites references in nested properties and combinators', () => {
    const schema = {
      type: 'object',
      properties: { outer: { type: 'object', properties: { inner: { anyOf: [{ $ref: '#/definitions/A' }, { type: 'null' }] } } } },
      definitions: { A: { type: 'string' } },
    };
    expect(normalizeSchema(schema)).toEqual({
      type: 'object',
      properties: { outer: { type: 'object', properties: { inner: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] } } } },
      $defs: { A: { type: 'string' } },
    });
  });

  it('treats property and definition names as names, not keywords', () => {
    const schema = {
      type: 'object',
      properties: { definitions: { type: 'string' }, $schema: { type: 'string' }, $ref: { $ref: '#/definitions/default' } },
      definitions: { default: { $ref: '#/definitions/definitions' }, definitions: { type: 'string' } },
    };
    expect(normalizeSchema(schema)).toEqual({
      type: 'object',
      properties: { definitions: { type: 'string' }, $schema: { type: 'string' }, $ref: { $ref: '#/$defs/default' } },
      $defs: { default: { $ref: '#/$defs/definitions' }, definitions: { type: 'string' } },
    });
  });

  it('leaves instance values (default, const, enum, examples) as the server wrote them', () => {
    const values = { default: { definitions: [1] }, const: { $ref: '#/definitions/x' }, enum: [{ $schema: 'draft-07' }], examples: [{ definitions: {} }] };
    expect(normalizeSchema({ type: 'object', properties: { v: values } })).toEqual({ type: 'object', properties: { v: values } });
  });

  it('gives a root without a type the type object, and only the root', () => {
    expect(normalizeSchema({ properties: { x: { properties: { y: { type: 'string' } } } } })).toEqual({
      type: 'object',
      properties: { x: { properties: { y: { type: 'string' } } } },
    });
    expect(normalizeSchema({})).toEqual({ type: 'object' });
  });

  it('keeps a 2020-12 $schema and one it does not know, for the validator to judge', () => {
    expect(normalizeSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' })).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(normalizeSchema({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' })).toEqual({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' });
  });
});

describe('mapMcpTool', () => {
  it('maps a listed tool to an mcp manifest with the server’s limits and scope', () => {
    const { manifest, mcpName } = mapped(echo, server({ timeoutMs: 5_000, maxConcurrency: 2, retries: 3 }));
    expect(mcpName).toBe('echo');
    expect(manifest).toEqual({
      name: 'echo',
      title: 'echo',
      description: 'Echoes back the input message unchanged',
      category: ['mcp'],
      tags: ['mcp', 'everything', 'open-world'],
      inputSchema: echo.inputSchema,
      outputSchema: CONTENT_OUTPUT_SCHEMA,
      examples: [],
      permissions: { scopes: ['mcp:everything'], risk: 'destructive' },
      limits: { timeoutMs: 5_000, maxConcurrency: 2, retries: 0, idempotent: false },
      execution: 'mcp',
    });
  });

  it('keeps the name the server knows when the catalog name differs', () => {
    const { manifest, mcpName } = mapped({ ...echo, name: 'Fs.ReadFile' });
    expect(manifest.name).toBe('fs_readfile');
    expect(mcpName).toBe('Fs.ReadFile');
  });

  it('uses a declared outputSchema, normalized, instead of the content schema', () => {
    const outputSchema = { $schema: 'http://json-schema.org/draft-07/schema#', properties: { sum: { type: 'number' } }, required: ['sum'] };
    expect(manifestOf({ ...echo, outputSchema }).outputSchema).toEqual({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
  });

  it('takes the title from the tool, then its annotations, then its name', () => {
    expect(manifestOf({ ...echo, title: 'Echo', annotations: { title: 'Annotated' } }).title).toBe('Echo');
    expect(manifestOf({ ...echo, annotations: { title: 'Annotated' } }).title).toBe('Annotated');
    const long = manifestOf({ ...echo, title: 'T'.repeat(300) }).title;
    expect(long).toHaveLength(120);
    expect(long.endsWith('…')).toBe(true);
  });

  it('pads a description shorter than 20 characters with where the tool comes from', () => {
    expect(manifestOf({ ...echo, description: 'Echoes' }).description).toBe('Echoes. Tool "echo" of the MCP server everything.');
    expect(manifestOf({ ...echo, description: 'Echoes.' }).description).toBe('Echoes. Tool "echo" of the MCP server everything.');
    expect(manifestOf({ ...echo, description: '  ', title: 'Echo tool' }).description).toBe('Echo tool. Tool "echo" of the MCP server everything.');
    expect(manifestOf({ ...echo, description: undefined }).description).toBe('echo. Tool "echo" of the MCP server everything.');
  });

  it('cuts a description longer than 4000 characters', () => {
    const description = manifestOf({ ...echo, description: `Start. ${'word '.repeat(2000)}` }).description;
    expect(description).toHaveLength(4000);
    expect(description.startsWith('Start. word word')).toBe(true);
    expect(description.endsWith('…')).toBe(true);
  });

  it('believes idempotency only from a trusted server, and retries only idempotent tools', () => {
    const hints = { ...echo, annotations: { idempotentHint: true } };
    expect(manifestOf(hints, server({ retries: 2 })).limits).toMatchObject({ idempotent: false, retries: 0 });
    expect(manifestOf(hints, server({ trust: 'trusted', retries: 2 })).limits).toMatchObject({ idempotent: true, retries: 2 });
    expect(manifestOf({ ...echo, annotations: { readOnlyHint: true } }, server({ trust: 'trusted' })).limits.idempotent).toBe(true);
    expect(manifestOf({ ...echo, annotations: { readOnlyHint: true } }, server()).limits.idempotent).toBe(false);
  });

  it('maps the risk under the trust rules', () => {
    const readOnly = { ...echo, annotations: { readOnlyHint: true } };
    expect(manifestOf(readOnly).permissions.risk).toBe('write');
    expect(manifestOf(readOnly, server({ trust: 'trusted' })).permissions.risk).toBe('read');
  });

  it('asks for approval when the operator configured it, whatever the annotations', () => {
    expect(manifestOf({ ...echo, annotations: { readOnlyHint: true } }, server({ trust: 'trusted', requiresApproval: true })).permissions).toEqual({
      scopes: ['mcp:everything'],
      risk: 'read',
      requiresApproval: true,
    });
    expect(manifestOf(echo, server({ requiresApproval: false })).permissions).not.toHaveProperty('requiresApproval');
  });

  it('drops the open-world tag only when the server says the tool is closed', () => {
    expect(manifestOf({ ...echo, annotations: { openWorldHint: false } }).tags).toEqual(['mcp', 'everything']);
    expect(manifestOf({ ...echo, annotations: { openWorldHint: true } }).tags).toContain('open-world');
  });

  it('refuses a schema outside the subset, naming each keyword by its JSON pointer', () => {
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema conditional, the keyword this test is about
    const conditional = { type: 'object', properties: { kind: { type: 'string' } }, if: { properties: { kind: { const: 'a' } } }, then: { required: ['a'] } };
    expect(issuesOf({ ...echo, inputSchema: conditional }, 3)).toEqual([
      { path: '/tools/3/inputSchema/if', message: expect.stringContaining('outside the supported JSON Schema subset') },
      { path: '/tools/3/inputSchema/then', message: expect.stringContaining('outside the supported JSON Schema subset') },
    ]);
    const patterned = { type: 'object', properties: { meta: { type: 'object', patternProperties: { '^x-': { type: 'string' } } } } };
    expect(issuesOf({ ...echo, outputSchema: patterned })).toEqual([{ path: '/tools/0/outputSchema/properties/meta/patternProperties', message: expect.stringContaining('"patternProperties"') }]);
  });

  it('refuses a root that is not an object and a draft it does not know', () => {
    expect(issuesOf({ ...echo, inputSchema: { type: 'string' } })).toEqual([{ path: '/tools/0/inputSchema/type', message: expect.stringContaining('type "object"') }]);
    expect(issuesOf({ ...echo, inputSchema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' } })).toEqual([
      { path: '/tools/0/inputSchema/$schema', message: expect.any(String) },
    ]);
  });

  it('refuses a tool without a name', () => {
    expect(issuesOf({ ...echo, name: '' }, 1)).toEqual([{ path: '/tools/1/name', message: 'must be a non-empty string' }]);
  });
});
