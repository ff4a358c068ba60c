import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { describeTarget, loadMcpServers, type McpServerConfig, parseMcpServers, scrubSecrets, secretsOf } from './mcp-servers.config';

const CONFIG_FILE = '/etc/toolgate/toolgate.config.yaml';
const defaults = { trust: 'untrusted', timeoutMs: 30_000, maxConcurrency: 8, retries: 1, isolation: 'tenant', enabled: true, protocol: 'auto' };

const parse = (mcpServers: unknown, env: NodeJS.ProcessEnv = {}) => parseMcpServers({ mcpServers }, CONFIG_FILE, env);

const invalid = (mcpServers: unknown, env: NodeJS.ProcessEnv = {}) => {
  try {
    parse(mcpServers, env);
  } catch (error) {
    expect(ToolgateError.is(error, ErrorCode.INVALID_CONFIG)).toBe(true);
    return (error as ToolgateError).details;
  }
  throw new Error('expected INVALID_CONFIG');
};

describe('parseMcpServers', () => {
  it('reads the stdio and the Streamable HTTP shape with defaults', () => {
    const servers = parse({
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
      remote: { url: 'https://mcp.example.com/mcp' },
    });
    expect(servers).toEqual([
      { name: 'everything', config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: {}, ...defaults } },
      { name: 'remote', config: { url: 'https://mcp.example.com/mcp', headers: {}, ...defaults } },
    ]);
  });

  it("keeps the operator's overrides", () => {
    const [{ config }] = parse({ fs: { command: 'node', trust: 'trusted', risk: 'write', requiresApproval: true, timeoutMs: 500, retries: 0, isolation: 'shared', enabled: false } });
    expect(config).toMatchObject({ trust: 'trusted', risk: 'write', requiresApproval: true, timeoutMs: 500, retries: 0, isolation: 'shared', enabled: false });
  });

  it('has no servers without a section', () => {
    expect(parseMcpServers({}, CONFIG_FILE)).toEqual([]);
    expect(parseMcpServers(null, CONFIG_FILE)).toEqual([]);
    expect(parseMcpServers({ mcpServers: null }, CONFIG_FILE)).toEqual([]);
  });

  it('substitutes environment variables in values', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax is what this test is about
    const raw = { gh: { url: 'https://${GH_HOST}/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } }, fs: { command: 'node', env: { API_KEY: '${FS_KEY}' } } };
    const servers = parse(raw, { GH_HOST: 'api.example.com', GH_TOKEN: 'ghp-secret', FS_KEY: 'fs-secret' });
    expect(servers[0].config).toMatchObject({ url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ghp-secret' } });
    expect(servers[1].config).toMatchObject({ env: { API_KEY: 'fs-secret' } });
  });

  it('names the field of a missing variable', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax is what this test is about
    expect(invalid({ fs: { command: 'node', env: { X: '${NOT_SET}' } } })).toEqual([{ path: '/mcpServers/fs/env/X', message: 'environment variable NOT_SET is not set' }]);
  });

  it('refuses a server with both command and url, or neither', () => {
    expect(invalid({ both: { command: 'node', url: 'https://h.example/mcp' } })).toEqual([{ path: '/mcpServers/both', message: expect.stringContaining('not both') }]);
    expect(invalid({ neither: { args: ['x'] } })).toEqual([{ path: '/mcpServers/neither', message: expect.stringMatching(/"command".*"url"/) }]);
    expect(invalid({ scalar: 'npx server' })).toEqual([{ path: '/mcpServers/scalar', message: expect.stringContaining('must be an object') }]);
  });

  it('names an unknown field, also one that belongs to the other shape', () => {
    expect(invalid({ fs: { command: 'node', comand: 'typo' } })).toEqual([{ path: '/mcpServers/fs/comand', message: expect.stringContaining('unknown field') }]);
    expect(invalid({ web: { url: 'https://h.example/mcp', args: ['x'] } })).toEqual([{ path: '/mcpServers/web/args', message: expect.stringContaining('unknown field') }]);
  });

  it('names a bad value at its field', () => {
    expect(invalid({ fs: { command: 'node', timeoutMs: 'soon', trust: 'yes' } }).map((d) => d.path)).toEqual(['/mcpServers/fs/trust', '/mcpServers/fs/timeoutMs']);
    expect(invalid({ web: { url: 'https://h.example/mcp', headers: { 'Bad Header': 'v' } } })).toEqual([{ path: '/mcpServers/web/headers/Bad Header', message: 'must be a variable or header name' }]);
  });

  it('keeps secrets out of the error it reports', () => {
    let error: unknown;
    try {
      parse({ web: { url: 'ftp://h.example/mcp?token=url-secret', headers: { Authorization: 'Bearer header-secret', 'Bad Header': 'other-secret' } } });
    } catch (caught) {
      error = caught;
    }
    expect(ToolgateError.is(error, ErrorCode.INVALID_CONFIG)).toBe(true);
    const { message, details } = error as ToolgateError;
    expect(details.map((d) => d.path)).toEqual(['/mcpServers/web/url', '/mcpServers/web/headers/Bad Header']);
    expect(JSON.stringify({ message, details })).not.toMatch(/secret/);
  });

  it('refuses a server name that is not a namespace', () => {
    expect(invalid({ Everything: { command: 'node' }, 'a/b': { command: 'node' } })).toEqual([
      { path: '/mcpServers/Everything', message: expect.stringContaining('server names are tool namespaces') },
      { path: '/mcpServers/a~1b', message: expect.stringContaining('server names are tool namespaces') },
    ]);
  });

  it.each(['ftp://h.example/mcp', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])('refuses the URL %j', (url) => {
    expect(invalid({ web: { url } })).toEqual([{ path: '/mcpServers/web/url', message: 'must be an http:// or https:// URL' }]);
  });

  it('reports every problem at once', () => {
    expect(invalid({ a: { command: 'node', retries: 9 }, b: { url: 'ftp://x' }, C: { command: 'node' } }).map((d) => d.path)).toEqual(['/mcpServers/a/retries', '/mcpServers/b/url', '/mcpServers/C']);
  });

  it("resolves a relative cwd against the config file's folder and keeps an absolute one", () => {
    const servers = parse({ rel: { command: 'node', cwd: 'servers/fs' }, abs: { command: 'node', cwd: '/opt/fs' }, none: { command: 'node' } });
    expect(servers.map((s) => (s.config as { cwd?: string }).cwd)).toEqual(['/etc/toolgate/servers/fs', '/opt/fs', undefined]);
  });
});

describe('loadMcpServers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-servers-'));

  it('reads YAML and JSON files, and none without a file', async () => {
    writeFileSync(join(dir, 'a.yaml'), 'mcpServers:\n  fs:\n    command: node\n    cwd: srv\n');
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ mcpServers: { web: { url: 'http://127.0.0.1:9/mcp' } } }));
    expect(await loadMcpServers(join(dir, 'a.yaml'), {})).toEqual([{ name: 'fs', config: { command: 'node', args: [], env: {}, cwd: join(dir, 'srv'), ...defaults } }]);
    expect((await loadMcpServers(join(dir, 'a.json'), {})).map((s) => s.name)).toEqual(['web']);
    expect(await loadMcpServers(null)).toEqual([]);
  });

  it('reports an unreadable file as INVALID_CONFIG', async () => {
    writeFileSync(join(dir, 'b.yaml'), 'mcpServers: [unclosed');
    await expect(loadMcpServers(join(dir, 'b.yaml'))).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG });
    await expect(loadMcpServers(join(dir, 'missing.yaml'))).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG });
  });
});

describe('describeTarget', () => {
  const http = (url: string): McpServerConfig => parse({ web: { url, headers: { Authorization: 'Bearer header-secret' } } })[0].config;

  it('shows a stdio command and how many args, never the args or env values', () => {
    const [{ config }] = parse({ fs: { command: 'npx', args: ['-y', 'server', '--token=arg-secret'], env: { API_KEY: 'env-secret' } } });
    const shown = describeTarget(config);
    expect(shown).toBe('stdio: npx (3 args)');
    expect(shown).not.toMatch(/secret/);
    expect(describeTarget(parse({ fs: { command: 'node' } })[0].config)).toBe('stdio: node');
  });

  it('shows an HTTP origin and path, never query, fragment or headers', () => {
    const shown = describeTarget(http('https://mcp.example.com:8443/v1/mcp?token=query-secret#frag-secret'));
    expect(shown).toBe('http: https://mcp.example.com:8443/v1/mcp');
    expect(shown).not.toMatch(/secret|user/);
  });
});

describe('secretsOf / scrubSecrets', () => {
  it('finds header and env values, URL credentials and query values, and replaces each wherever it appears', () => {
    const [http] = parse({ web: { url: 'http://127.0.0.1:9/mcp?token=q-secret-123&pw=pa55word-x', headers: { Authorization: 'Bearer h-secret-456' } } });
    const [stdio] = parse({ local: { command: 'node', env: { API_KEY: 'e-secret-789', SHORT: 'ab' } } });
    const text = 'GET http://127.0.0.1:9/mcp?token=q-secret-123&pw=pa55word-x with h-secret-456 failed; env e-secret-789; ab stays';
    expect(scrubSecrets(scrubSecrets(text, secretsOf(http.config)), secretsOf(stdio.config))).toBe('GET http://127.0.0.1:9/mcp?token=***&pw=*** with *** failed; env ***; ab stays');
  });

  it('refuses credentials in a URL, which fetch cannot send and would echo', () => {
    expect(invalid({ web: { url: 'http://ops:pa55word-x@127.0.0.1:9/mcp' } })).toEqual([{ path: '/mcpServers/web/url', message: expect.stringContaining('must not carry credentials') }]);
  });
});
