import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ErrorCode, type ErrorDetail, ToolgateError, toolGlobProblem } from '@toolgate/sdk';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { PolicySet } from './policy.types';

const identifier = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'must be 1-64 letters, digits, . _ : -');

const grantSchema = z.strictObject({
  tools: z.string().superRefine((glob, ctx) => {
    const problem = toolGlobProblem(glob);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  actions: z.array(z.enum(['discover', 'execute'])).min(1),
  maxRisk: z.enum(['read', 'write', 'destructive']).default('read'),
});

const roleSchema = z.strictObject({
  description: z.string().max(500).optional(),
  /** Tenant admin: its changes (tool version states) apply to its own tenant only. */
  admin: z.boolean().default(false),
  /** Platform admin: changes that affect every tenant (reloads, approvals, platform-wide version states). */
  platformAdmin: z.boolean().default(false),
  grants: z.array(grantSchema).default([]),
});

const apiKeySchema = z
  .strictObject({
    key: z.string().min(16, 'must be at least 16 characters').optional(),
    keySha256: z
      .string()
      .regex(/^[a-f0-9]{64}$/, 'must be a lowercase hex sha256')
      .optional(),
    tenant: identifier,
    subject: identifier,
    roles: z.array(identifier).min(1),
  })
  .refine((k) => (k.key === undefined) !== (k.keySha256 === undefined), { message: 'give exactly one of "key" or "keySha256"' });

const policyFileSchema = z.strictObject({
  roles: z.record(identifier, roleSchema).default({}),
  apiKeys: z.array(apiKeySchema).default([]),
  /** Read and validated by the MCP tool source (sources/mcp/mcp-servers.config.ts). */
  mcpServers: z.unknown().optional(),
});

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const toPointer = (path: PropertyKey[]): string => (path.length ? `/${path.map(String).join('/')}` : '/');

/** `${NAME}` in a string value is replaced by that environment variable, so keys need not sit in the file. */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, path: string, issues: ErrorDetail[]): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
      const resolved = env[name];
      if (resolved === undefined) issues.push({ path, message: `environment variable ${name} is not set` });
      return resolved ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, `${path}/${i}`, issues));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, `${path}/${k}`, issues)]));
  }
  return value;
}

/** Parses and validates a policy document; throws INVALID_CONFIG naming every offending field. */
export function parsePolicyDocument(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): PolicySet {
  const issues: ErrorDetail[] = [];
  const interpolated = interpolateEnv(raw ?? {}, env, '', issues);
  const parsed = policyFileSchema.safeParse(interpolated);
  if (!parsed.success) {
    issues.push(...parsed.error.issues.map((i) => ({ path: toPointer(i.path), message: i.message })));
  }
  if (issues.length > 0 || !parsed.success) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `policy file ${source} is invalid`, issues);
  }
  const { roles, apiKeys } = parsed.data;
  const seen = new Map<string, number>();
  apiKeys.forEach((key, i) => {
    key.roles.forEach((role, j) => {
      if (!(role in roles)) issues.push({ path: `/apiKeys/${i}/roles/${j}`, message: `unknown role "${role}" (defined: ${Object.keys(roles).join(', ') || 'none'})` });
    });
    const hash = key.keySha256 ?? sha256(key.key as string);
    const previous = seen.get(hash);
    if (previous !== undefined) issues.push({ path: `/apiKeys/${i}`, message: `same key as /apiKeys/${previous}` });
    seen.set(hash, i);
  });
  if (issues.length > 0) throw new ToolgateError(ErrorCode.INVALID_CONFIG, `policy file ${source} is invalid`, issues);

  return {
    source,
    roles: Object.entries(roles).map(([name, role]) => ({
      name,
      description: role.description ?? null,
      admin: role.admin || role.platformAdmin,
      platformAdmin: role.platformAdmin,
      grants: role.grants,
    })),
    apiKeys: apiKeys.map((key) => ({
      keySha256: key.keySha256 ?? sha256(key.key as string),
      label: key.key ? `${key.key.slice(0, 6)}…` : `sha256:${(key.keySha256 as string).slice(0, 8)}…`,
      tenant: key.tenant,
      subject: key.subject,
      roles: key.roles,
    })),
  };
}

/** Reads `toolgate.config.yaml` / `.yml` / `.json`. */
export async function loadPolicyFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<PolicySet> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `cannot read policy file ${path}: ${(error as Error).message}`, [], { cause: error });
  }
  let raw: unknown;
  try {
    raw = extname(path) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, `policy file ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`, [], { cause: error });
  }
  return parsePolicyDocument(raw, path, env);
}
