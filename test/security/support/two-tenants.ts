import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { BM25_ONLY, REPO_ROOT, type RunningGateway, startGateway } from '../../support/gateway-process';

/**
 * The attacker's setting for every security spec: one built server, two tenants (acme and globex),
 * each with a read-only analyst and a tenant admin, and the platform's operator (a platform admin,
 * in neither tenant). Keys are what an outsider would be handed.
 */
export const KEYS = {
  acmeAnalyst: 'acme-analyst-key-000001',
  acmeAdmin: 'acme-admin-key-00000001',
  globexAnalyst: 'globex-analyst-key-0001',
  globexAdmin: 'globex-admin-key-000001',
  platformAdmin: 'platform-admin-key-0001',
} as const;

export const TWO_TENANT_POLICY = `
roles:
  analyst:
    description: Numbers, dates, text and tables; no files, no network.
    grants:
      - tools: "{units,calculator,currency,datetime,text,table,chart}/*"
        actions: [discover, execute]
        maxRisk: read
  operator:
    description: Everything in its own tenant, and its tenant's admin.
    admin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
  platform:
    description: The platform's operator; changes that affect every tenant (reloads, approvals, platform-wide states).
    platformAdmin: true
    grants:
      - tools: "**"
        actions: [discover, execute]
        maxRisk: destructive
apiKeys:
  - key: ${KEYS.acmeAnalyst}
    tenant: acme
    subject: alice
    roles: [analyst]
  - key: ${KEYS.acmeAdmin}
    tenant: acme
    subject: ops
    roles: [operator]
  - key: ${KEYS.globexAnalyst}
    tenant: globex
    subject: gina
    roles: [analyst]
  - key: ${KEYS.globexAdmin}
    tenant: globex
    subject: gops
    roles: [operator]
  - key: ${KEYS.platformAdmin}
    tenant: platform
    subject: root
    roles: [platform]
`;

export interface TwoTenantServer {
  gateway: RunningGateway;
  url: string;
  /** The server's own working folder (data dir, policy file, extra plugins). */
  work: string;
  policyFile: string;
  stop(): Promise<void>;
}

/**
 * Starts the built server on 127.0.0.1 with the two-tenant policy, the bundled plugins plus
 * `extraPluginDirs`, and `env` on top (BM25 only unless a spec overrides TOOLGATE_EMBEDDER).
 * Pass `work` to restart over the same data folder (crash-recovery specs).
 */
export async function startTwoTenantServer(env: Record<string, string> = {}, options: { extraPluginDirs?: string[]; work?: string; policy?: string } = {}): Promise<TwoTenantServer> {
  const work = options.work ?? mkdtempSync(join(tmpdir(), 'toolgate-security-'));
  const policyFile = join(work, 'toolgate.config.yaml');
  writeFileSync(policyFile, options.policy ?? TWO_TENANT_POLICY);
  const gateway = await startGateway({
    ...BM25_ONLY,
    TOOLGATE_DATA_DIR: join(work, 'data'),
    TOOLGATE_PLUGIN_DIRS: [join(REPO_ROOT, 'plugins'), ...(options.extraPluginDirs ?? [])].join(delimiter),
    TOOLGATE_CONFIG: policyFile,
    HOST: '127.0.0.1',
    ...env,
  });
  return {
    gateway,
    url: gateway.url,
    work,
    policyFile,
    stop: async () => {
      await gateway.stop();
      if (!options.work) rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Milliseconds `/health` takes to answer right now; an attack must never push this past a second. */
export async function healthLatencyMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url.replace(/\/graphql$/, '/health'), { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
  return performance.now() - started;
}
