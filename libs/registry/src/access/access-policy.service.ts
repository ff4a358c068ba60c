import { Inject, Injectable, Logger } from '@nestjs/common';
import { compileToolGlob, ErrorCode, RISK_ORDER, type Risk, ToolgateError } from '@toolgate/sdk';
import { DataSource } from 'typeorm';
import { ApiKeyEntity } from '../persistence/api-key.entity';
import { RoleEntity } from '../persistence/role.entity';
import { transaction } from '../persistence/transaction.queue';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../registry.module-definition';
import type { Action, DiscoveryClause, PolicySet, Principal, RoleDefinition } from './policy.types';
import { loadPolicyFile, sha256 } from './policy-file.loader';

/** The role of the built-in principal used when no API keys are configured (local, single-user mode). */
export const LOCAL_ADMIN_ROLE: RoleDefinition = {
  name: 'toolgate:local-admin',
  description: 'Built-in: everything, for the local single-user mode (no API keys configured).',
  admin: true,
  platformAdmin: true,
  grants: [{ tools: '**', actions: ['discover', 'execute'], maxRisk: 'destructive' }],
};
export const LOCAL_ADMIN: Principal = Object.freeze({ tenant: 'local', subject: 'local-admin', roles: [LOCAL_ADMIN_ROLE.name] });

interface CompiledGrant {
  glob: string;
  matches: (toolId: string) => boolean;
  actions: ReadonlySet<Action>;
  maxRiskRank: number;
  maxRisk: Risk;
}
interface CompiledPolicies {
  set: PolicySet;
  roles: Map<string, { admin: boolean; platformAdmin: boolean; grants: CompiledGrant[] }>;
  keys: Map<string, Principal>;
  tenants: ReadonlySet<string>;
}

const riskRank = (risk: Risk): number => RISK_ORDER.indexOf(risk);

function compile(set: PolicySet): CompiledPolicies {
  const roles = new Map<string, { admin: boolean; platformAdmin: boolean; grants: CompiledGrant[] }>();
  const all = set.apiKeys.length === 0 ? [...set.roles, LOCAL_ADMIN_ROLE] : set.roles;
  for (const role of all) {
    roles.set(role.name, {
      admin: role.admin || role.platformAdmin,
      platformAdmin: role.platformAdmin,
      grants: role.grants.map((g) => ({ glob: g.tools, matches: compileToolGlob(g.tools), actions: new Set(g.actions), maxRisk: g.maxRisk, maxRiskRank: riskRank(g.maxRisk) })),
    });
  }
  const keys = new Map(set.apiKeys.map((k) => [k.keySha256, Object.freeze({ tenant: k.tenant, subject: k.subject, roles: [...k.roles] })]));
  return { set, roles, keys, tenants: new Set(set.apiKeys.map((k) => k.tenant)) };
}

/**
 * Roles, grants and API keys. Deny by default: a principal may act on a tool only when one of its
 * roles has a grant whose glob matches the tool id, lists the action and allows the tool's risk.
 * The policy file is the source of truth; its validated content is mirrored into the database.
 */
@Injectable()
export class AccessPolicyService {
  private readonly logger = new Logger('AccessPolicy');
  private policies: CompiledPolicies = compile({ roles: [], apiKeys: [], source: null });
  /** Set by the first load (at boot): a server that started with API keys never falls back to keyless local mode. */
  private startedWithKeys: boolean | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions,
  ) {}

  /** True when no API keys are configured: every request acts as the local admin. */
  get localMode(): boolean {
    return this.policies.keys.size === 0;
  }

  /** Tenants the API keys name (1 in local mode): fair shares between tenants apply only with more than one. */
  get tenantCount(): number {
    return Math.max(1, this.policies.tenants.size);
  }

  get current(): PolicySet {
    return this.policies.set;
  }

  /**
   * Reads and validates the policy file, then swaps it in and stores it in one transaction.
   * On any error the policies in force stay exactly as they were.
   */
  async reload(): Promise<PolicySet> {
    const set = this.options.policyFile ? await loadPolicyFile(this.options.policyFile) : { roles: [], apiKeys: [], source: null };
    if (this.startedWithKeys && set.apiKeys.length === 0) {
      // Keyless local mode is decided at boot (and only served on loopback): a reload must not open a keyed server.
      throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'the policy file defines no API keys: this server started with keys and stays keyed; the policies in force are kept', [
        { path: '/apiKeys', message: 'must not be empty on a server that started with API keys (restart on 127.0.0.1 for keyless local mode)' },
      ]);
    }
    const compiled = compile(set);
    await transaction(this.dataSource, async (tx) => {
      await tx.getRepository(ApiKeyEntity).clear();
      await tx.getRepository(RoleEntity).clear();
      await tx.getRepository(RoleEntity).insert(set.roles.map((r) => ({ ...r })));
      if (set.apiKeys.length > 0) await tx.getRepository(ApiKeyEntity).insert(set.apiKeys.map((k) => ({ ...k })));
    });
    this.policies = compiled;
    this.startedWithKeys ??= set.apiKeys.length > 0;
    this.logger.log(
      { roles: set.roles.map((r) => r.name), apiKeys: set.apiKeys.length, source: set.source },
      set.apiKeys.length === 0 ? 'no API keys configured: every request acts as the local admin' : 'policies loaded',
    );
    return set;
  }

  /** Resolves `Authorization: Bearer <key>`; throws UNAUTHENTICATED for a missing or unknown key. */
  authenticate(bearerToken: string | undefined | null): Principal {
    if (this.localMode) return LOCAL_ADMIN;
    if (!bearerToken) throw new ToolgateError(ErrorCode.UNAUTHENTICATED, 'missing API key: send "Authorization: Bearer <key>"');
    const principal = this.policies.keys.get(sha256(bearerToken));
    if (!principal) throw new ToolgateError(ErrorCode.UNAUTHENTICATED, 'unknown API key');
    return principal;
  }

  can(principal: Principal, action: Action, toolId: string, risk: Risk): boolean {
    const rank = riskRank(risk);
    return this.grantsOf(principal).some((g) => g.actions.has(action) && rank <= g.maxRiskRank && g.matches(toolId));
  }

  /** A tenant admin (or a platform admin): its changes apply to its own tenant. */
  isAdmin(principal: Principal): boolean {
    return principal.roles.some((name) => this.policies.roles.get(name)?.admin === true);
  }

  /** May make changes that affect every tenant; the keyless local admin is one. */
  isPlatformAdmin(principal: Principal): boolean {
    return principal.roles.some((name) => this.policies.roles.get(name)?.platformAdmin === true);
  }

  assertAdmin(principal: Principal, what: string): void {
    if (!this.isAdmin(principal)) throw new ToolgateError(ErrorCode.FORBIDDEN, `${what} needs an admin role (admin: true)`);
  }

  assertPlatformAdmin(principal: Principal, what: string): void {
    if (!this.isPlatformAdmin(principal)) {
      throw new ToolgateError(ErrorCode.FORBIDDEN, `${what} affects every tenant and needs a platform admin role (platformAdmin: true); a tenant admin (admin: true) may not`);
    }
  }

  /** The discover grants of a principal as filter clauses for an index (empty = sees nothing). */
  discoveryScope(principal: Principal): DiscoveryClause[] {
    return this.grantsOf(principal)
      .filter((g) => g.actions.has('discover'))
      .map((g) => ({ idGlob: g.glob, maxRisk: g.maxRisk }));
  }

  private grantsOf(principal: Principal): CompiledGrant[] {
    return principal.roles.flatMap((name) => this.policies.roles.get(name)?.grants ?? []);
  }
}
