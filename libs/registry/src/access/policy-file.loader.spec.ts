import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { loadPolicyFile, parsePolicyDocument, sha256 } from './policy-file.loader';

const doc = {
  roles: { analyst: { grants: [{ tools: 'units/*', actions: ['discover', 'execute'], maxRisk: 'read' }] }, ops: { admin: true, grants: [{ tools: '**', actions: ['discover'] }] } },
  apiKeys: [{ key: 'alice-key-0123456789', tenant: 'acme', subject: 'alice', roles: ['analyst'] }],
};

const invalid = (raw: unknown, env: NodeJS.ProcessEnv = {}) => {
  try {
    parsePolicyDocument(raw, 'test.yaml', env);
  } catch (error) {
    expect(ToolgateError.is(error, ErrorCode.INVALID_CONFIG)).toBe(true);
    return (error as ToolgateError).details;
  }
  throw new Error('expected INVALID_CONFIG');
};

describe('parsePolicyDocument', () => {
  it('stores only key hashes and fills defaults', () => {
    const set = parsePolicyDocument(doc, 'test.yaml');
    expect(set.apiKeys).toEqual([{ keySha256: sha256('alice-key-0123456789'), label: 'alice-…', tenant: 'acme', subject: 'alice', roles: ['analyst'] }]);
    expect(set.roles.find((r) => r.name === 'ops')).toEqual({ name: 'ops', description: null, admin: true, platformAdmin: false, grants: [{ tools: '**', actions: ['discover'], maxRisk: 'read' }] });
  });

  it('reads platformAdmin, which implies admin, and names a mistyped flag', () => {
    const set = parsePolicyDocument({ ...doc, roles: { ...doc.roles, platform: { platformAdmin: true } } }, 'test.yaml');
    expect(set.roles.find((r) => r.name === 'platform')).toMatchObject({ admin: true, platformAdmin: true });
    expect(set.roles.find((r) => r.name === 'analyst')).toMatchObject({ admin: false, platformAdmin: false });
    expect(invalid({ roles: { x: { platformAdmin: 'yes' } } })).toEqual([{ path: '/roles/x/platformAdmin', message: expect.any(String) }]);
  });

  it('names an unknown role', () => {
    const raw = { ...doc, apiKeys: [{ ...doc.apiKeys[0], roles: ['analyst', 'auditor'] }] };
    expect(invalid(raw)).toEqual([{ path: '/apiKeys/0/roles/1', message: expect.stringContaining('unknown role "auditor"') }]);
  });

  it('names a bad glob', () => {
    const raw = { roles: { x: { grants: [{ tools: 'units', actions: ['discover'] }] } } };
    expect(invalid(raw)).toEqual([{ path: '/roles/x/grants/0/tools', message: expect.stringContaining('did you mean "units/*"') }]);
  });

  it('names unknown fields, bad actions and short keys', () => {
    const raw = { roles: { x: { grants: [{ tools: 'a/*', actions: ['delete'] }], colour: 'red' } }, apiKeys: [{ key: 'short', tenant: 't', subject: 's', roles: ['x'] }] };
    const paths = invalid(raw).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['/roles/x/grants/0/actions/0', '/roles/x', '/apiKeys/0/key']));
  });

  it('reads keys from the environment and names a missing variable', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the policy file's ${VAR} syntax is what this test is about
    const raw = { ...doc, apiKeys: [{ ...doc.apiKeys[0], key: '${ALICE_KEY}' }] };
    expect(parsePolicyDocument(raw, 't', { ALICE_KEY: 'from-env-0123456789' }).apiKeys[0].keySha256).toBe(sha256('from-env-0123456789'));
    expect(invalid(raw)).toEqual(expect.arrayContaining([{ path: '/apiKeys/0/key', message: 'environment variable ALICE_KEY is not set' }]));
  });

  it('rejects the same key twice', () => {
    const raw = { ...doc, apiKeys: [doc.apiKeys[0], { ...doc.apiKeys[0], subject: 'mallory' }] };
    expect(invalid(raw)).toEqual([{ path: '/apiKeys/1', message: 'same key as /apiKeys/0' }]);
  });
});

describe('loadPolicyFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'policy-'));

  it('reads YAML and JSON', async () => {
    writeFileSync(join(dir, 'a.yaml'), 'roles:\n  r:\n    grants:\n      - tools: "units/*"\n        actions: [discover]\n');
    writeFileSync(join(dir, 'a.json'), JSON.stringify(doc));
    expect((await loadPolicyFile(join(dir, 'a.yaml'))).roles.map((r) => r.name)).toEqual(['r']);
    expect((await loadPolicyFile(join(dir, 'a.json'))).apiKeys).toHaveLength(1);
  });

  it('reports unparsable files and missing files as INVALID_CONFIG', async () => {
    writeFileSync(join(dir, 'b.yaml'), 'roles: [unclosed');
    await expect(loadPolicyFile(join(dir, 'b.yaml'))).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG, message: expect.stringContaining('not valid YAML') });
    await expect(loadPolicyFile(join(dir, 'missing.yaml'))).rejects.toMatchObject({ code: ErrorCode.INVALID_CONFIG });
  });
});
