import { isAbsolute } from 'node:path';
import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { descriptorHash, ErrorCode, formatToolId, namespaceOfPackage, parseToolRef, ToolgateError, type ToolManifest, toDescriptor } from '@toolgate/sdk';
import { Subject } from 'rxjs';
import semver from 'semver';
import { DataSource, type EntityManager, IsNull, type QueryDeepPartialEntity } from 'typeorm';
import { AccessPolicyService } from '../access/access-policy.service';
import type { Principal } from '../access/policy.types';
import { scanDescriptor } from '../integrity/descriptor.scanner';
import type { IntegrityFinding } from '../integrity/integrity.types';
import { CHANGE_CHANNELS, DatabaseChanges } from '../persistence/database.changes';
import { type PluginCode, PluginEntity, PluginStatus } from '../persistence/plugin.entity';
import { TenantToolStateEntity } from '../persistence/tenant-tool-state.entity';
import { ToolVersionEntity, ToolVersionState } from '../persistence/tool-version.entity';
import { transaction } from '../persistence/transaction.queue';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../registry.module-definition';
import type { LoadedPlugin, PluginLoadResult } from '../sources/npm/plugin.loader';
import type { ToolSource } from '../sources/tool-source.port';
import { TOOL_SOURCE_LIST } from '../sources/tool-sources.list';
import type { CatalogFilter, PluginLoadReport, PluginView, ToolVersionView, ToolView, VersionStateScope } from './catalog.types';

const tracer = trace.getTracer('toolgate.registry');
const versionKey = (toolId: string, version: string) => `${toolId}@${version}`;
const newestFirst = (a: { version: string }, b: { version: string }) => semver.rcompare(a.version, b.version);
const HASH_PATTERN = /^[0-9a-f]{64}$/;
/** The state_reason column's width. */
const MAX_REASON = 500;
const clip = (reason: string) => (reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 1)}…`);

function findingsSummary(findings: IntegrityFinding[]): string {
  const rules = [...new Set(findings.map((f) => f.rule))];
  return `${findings.length} integrity finding${findings.length === 1 ? '' : 's'} (${rules.slice(0, 3).join(', ')}${rules.length > 3 ? ', …' : ''})`;
}

/** The highest loaded ACTIVE version: what a call without `@version` gets. */
const activeOf = (versions: ToolVersionView[]) => versions.find((v) => v.state === ToolVersionState.ACTIVE && v.loaded) ?? null;

/**
 * A tenant's state over the platform's: the platform's DISABLED (including a descriptor awaiting
 * approval) and QUARANTINED always win; otherwise the tenant admin's choice, if any.
 */
function effectiveVersion(platform: ToolVersionView, tenant: string, own: TenantToolStateEntity | undefined): ToolVersionView {
  if (!own || own.state === platform.state || platform.state === ToolVersionState.DISABLED || platform.state === ToolVersionState.QUARANTINED) return platform;
  return { ...platform, state: own.state, stateReason: `${own.state} for tenant ${tenant} (set by ${own.setBy}; platform-wide ${platform.state})` };
}

/** JSON columns (descriptors) are written whole, which TypeORM's deep-partial update type cannot express. */
const asPatch = (patch: Partial<ToolVersionEntity>) => patch as QueryDeepPartialEntity<ToolVersionEntity>;

/** Code loaded for a version that may not run until an admin approves its descriptor hash. */
interface HeldManifest {
  manifest: ToolManifest;
  hash: string;
}

interface Registration {
  runnable: Map<string, ToolManifest>;
  held: Map<string, HeldManifest>;
}

/**
 * The tool catalog: which tools and versions exist, their state and pinned descriptor, and the loaded
 * code of each version. Reads are served from an in-memory snapshot refreshed after every write.
 *
 * Version states have two layers: the platform's rollout state (set by platform admins, the integrity
 * scan and loads) and, over it, each tenant's own (set by that tenant's admins; see effectiveVersion).
 * Everything a principal reads or resolves is its tenant's view; the index and health checks follow
 * the platform's active versions.
 */
@Injectable()
export class CatalogService implements OnModuleInit {
  private readonly logger = new Logger('Catalog');
  private readonly manifests = new Map<string, ToolManifest>();
  private readonly held = new Map<string, HeldManifest>();
  private tools = new Map<string, ToolView>();
  /** Per tenant, the tools whose view its own version states change (others are the platform's view). */
  private tenantTools = new Map<string, Map<string, ToolView>>();
  private plugins: PluginView[] = [];
  private sourceReloads: Promise<void> = Promise.resolve();
  private readonly changed = new Subject<void>();
  /** Emits after every change of tools, versions, states or usage examples. */
  readonly changes$ = this.changed.asObservable();

  constructor(
    private readonly dataSource: DataSource,
    private readonly access: AccessPolicyService,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions,
    @Inject(TOOL_SOURCE_LIST) private readonly sources: readonly ToolSource[],
    @Optional() private readonly replicas?: DatabaseChanges,
  ) {}

  /** Loads every package of every tool source, registers new tool versions and records failures. */
  loadPlugins(): Promise<PluginLoadReport> {
    return this.loadFrom(this.sources);
  }

  /** A source that changed on its own (e.g. an MCP server's tool list) is loaded again alone, one load at a time. */
  onModuleInit(): void {
    // Another replica set version states (or loaded versions) in the shared database: read them again.
    const reread = () => {
      this.sourceReloads = this.sourceReloads
        .then(async () => {
          await this.refresh();
          this.changed.next();
        })
        .catch((error: unknown) => this.logger.warn({ err: error }, 'reading version states another replica changed failed'));
    };
    this.replicas?.catalog$.subscribe(reread);
    this.replicas?.reconnected$.subscribe(reread);
    for (const source of this.sources) {
      source.changes$?.subscribe(() => {
        this.sourceReloads = this.sourceReloads
          .then(() => this.loadFrom([source], true))
          .then(
            () => undefined,
            (error: unknown) => this.logger.warn({ source: source.kind, err: error }, 'reloading a changed tool source failed'),
          );
      });
    }
  }

  private async loadFrom(sources: readonly ToolSource[], changedOnly = false): Promise<PluginLoadReport> {
    return tracer.startActiveSpan('toolgate.registry.load', async (span) => {
      const started = performance.now();
      try {
        const loads = await Promise.all(sources.map(async (source) => ({ source, results: await (changedOnly ? source.loadChanged() : source.load()) })));
        const results = loads.flatMap((load) => load.results);
        for (const { source, results: offered } of loads) {
          for (const result of offered) await this.record(result, source.kind === 'npm');
          if (source.kind === 'npm' && !changedOnly) await this.markMissing(offered);
        }
        await this.refresh();
        const touched = new Set(results.map((r) => r.dir));
        const report: PluginLoadReport = {
          loaded: this.plugins.filter((p) => touched.has(p.path) && p.status === PluginStatus.LOADED),
          failed: this.plugins.filter((p) => touched.has(p.path) && p.status === PluginStatus.FAILED),
          durationMs: Math.round(performance.now() - started),
        };
        // A package.json too broken to name (package, version) cannot be stored; it is still reported.
        for (const r of results) {
          if (!r.ok && !r.identity) report.failed.push(this.unnamedFailure(r.dir, r.error, r.label));
        }
        span.setAttributes({
          'toolgate.plugins.discovered': results.length,
          'toolgate.plugins.loaded': report.loaded.length,
          'toolgate.plugins.failed': report.failed.length,
          'toolgate.tools': this.tools.size,
        });
        this.logger.log({ loaded: report.loaded.length, failed: report.failed.length, tools: this.tools.size, durationMs: report.durationMs }, 'plugins loaded');
        this.changed.next();
        return report;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  listTools(principal: Principal, filter: CatalogFilter = {}): ToolView[] {
    const includeInactive = filter.includeInactive === true && this.access.isAdmin(principal);
    return this.viewsFor(principal.tenant).filter(
      (tool) =>
        (includeInactive || tool.active !== null) &&
        (!filter.namespace || tool.namespace === filter.namespace) &&
        (!filter.category || this.shown(tool).descriptor.category.includes(filter.category)) &&
        this.visible(principal, tool),
    );
  }

  /** Every tool with a loaded ACTIVE version, for indexing; callers filter per principal. */
  activeTools(): ToolView[] {
    return [...this.tools.values()].filter((t) => t.active !== null);
  }

  /**
   * Resolves `namespace/name[@version]` or a bare `name` among the tools the principal may discover.
   * A tool it may not discover gets the same TOOL_NOT_FOUND as one that does not exist.
   */
  resolve(ref: string, principal: Principal): { tool: ToolView; version: ToolVersionView } {
    const parsed = parseToolRef(ref);
    let tool: ToolView | undefined;
    if (parsed.namespace) {
      tool = this.toolFor(formatToolId(parsed.namespace, parsed.name), principal.tenant);
      if (tool && !this.visible(principal, tool)) tool = undefined;
    } else {
      const matches = this.viewsFor(principal.tenant).filter((t) => t.name === parsed.name && this.visible(principal, t));
      if (matches.length > 1) {
        throw new ToolgateError(ErrorCode.AMBIGUOUS_TOOL, `"${parsed.name}" names ${matches.length} tools: ${matches.map((t) => t.id).join(', ')}; use namespace/name`);
      }
      tool = matches[0];
    }
    if (!tool) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool "${ref}" not found`);
    const version = parsed.version ? tool.versions.find((v) => v.version === parsed.version) : tool.active;
    if (!version) {
      throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, parsed.version ? `tool ${tool.id} has no version ${parsed.version}` : `tool ${tool.id} has no active version`);
    }
    // Its descriptor must reach no planner, model or executor, even when named with @version.
    if (version.state === ToolVersionState.QUARANTINED) {
      throw new ToolgateError(ErrorCode.UNAVAILABLE, `tool ${tool.id}@${version.version} is quarantined until an admin approves it`);
    }
    return { tool, version };
  }

  /** The loaded manifest (with its code) of one version, or undefined when it is not loaded. */
  manifest(toolId: string, version: string): ToolManifest | undefined {
    return this.manifests.get(versionKey(toolId, version));
  }

  /** The folder of the loaded plugin package that ships this version (for running its code elsewhere, e.g. a worker), or undefined. */
  packageDir(toolId: string, version: string): string | undefined {
    return this.loadedPlugin(toolId, version)?.path;
  }

  /** The code tree this version loaded and its hash: what a worker running it must find (null when it was too large to hash). */
  packageCode(toolId: string, version: string): PluginCode | null {
    return this.loadedPlugin(toolId, version)?.code ?? null;
  }

  private loadedPlugin(toolId: string, version: string): PluginView | undefined {
    if (!this.manifests.has(versionKey(toolId, version))) return undefined;
    const row = this.tools.get(toolId)?.versions.find((v) => v.version === version);
    return this.plugins.find((p) => p.packageName === row?.packageName && p.version === version && p.status === PluginStatus.LOADED);
  }

  listPlugins(): PluginView[] {
    return [...this.plugins];
  }

  /** How many tenants the API keys name (1 in local mode), for fair shares between tenants. */
  tenantCount(): number {
    return this.access.tenantCount;
  }

  /**
   * Operator action: ACTIVE, CANARY or DISABLED for one version. A version awaiting approval
   * (QUARANTINED, or a changed descriptor pending) is released only by `approveVersion`, which names
   * the hash approved; QUARANTINED is the integrity scan's to set.
   *
   * `tenant` scope (any admin) sets the state for the principal's tenant only; `platform` scope (a
   * platform admin) sets the rollout state every tenant starts from. A tenant cannot enable a version
   * the platform disabled. Returns the tool as the principal's tenant sees it.
   */
  async setVersionState(principal: Principal, toolId: string, version: string, state: ToolVersionState, scope: VersionStateScope = 'tenant'): Promise<ToolView> {
    if (scope === 'platform') this.access.assertPlatformAdmin(principal, 'changing a tool version state platform-wide');
    else this.access.assertAdmin(principal, 'changing a tool version state');
    const repo = this.dataSource.getRepository(ToolVersionEntity);
    const row = await repo.findOneBy({ toolId, version });
    if (!row) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${toolId}@${version} not found`);
    if (state === ToolVersionState.QUARANTINED) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'QUARANTINED is set by the integrity scan only; set DISABLED to stop offering a version', [
        { path: '/state', message: 'must be ACTIVE, CANARY or DISABLED' },
      ]);
    }
    const awaiting = row.pendingDescriptorHash ?? (row.state === ToolVersionState.QUARANTINED ? row.descriptorHash : null);
    if (awaiting && (state !== ToolVersionState.DISABLED || row.state === ToolVersionState.QUARANTINED)) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${toolId}@${version} awaits approval of descriptor ${awaiting}: review it, then approveToolVersion with that hash`, [
        { path: '/state', message: `${row.state} until descriptor ${awaiting} is approved` },
      ]);
    }
    if (scope === 'tenant') {
      await this.setTenantState(principal, row, state);
    } else {
      // A pending descriptor keeps its reason: the version still awaits approval.
      await repo.update({ id: row.id }, { state, stateReason: row.pendingDescriptorHash ? row.stateReason : null });
    }
    await this.refresh();
    this.changed.next();
    await this.tellReplicas();
    return this.toolFor(toolId, principal.tenant) as ToolView;
  }

  private async setTenantState(principal: Principal, row: ToolVersionEntity, state: ToolVersionState): Promise<void> {
    if (row.state === ToolVersionState.DISABLED && state !== ToolVersionState.DISABLED) {
      throw new ToolgateError(
        ErrorCode.FORBIDDEN,
        `${row.toolId}@${row.version} is disabled platform-wide: enabling it affects every tenant and needs a platform admin role (platformAdmin: true) with scope PLATFORM`,
      );
    }
    const repo = this.dataSource.getRepository(TenantToolStateEntity);
    const existing = await repo.findOneBy({ tenant: principal.tenant, toolId: row.toolId, version: row.version });
    const setBy = `${principal.tenant}/${principal.subject}`;
    if (existing) await repo.update({ id: existing.id }, { state, setBy, updatedAt: Date.now() });
    else await repo.insert(repo.create({ tenant: principal.tenant, toolId: row.toolId, version: row.version, state, setBy, updatedAt: Date.now() }));
    this.logger.log({ tool: versionKey(row.toolId, row.version), tenant: principal.tenant, state, by: setBy }, 'tool version state set for one tenant');
  }

  /**
   * Admin approval of exactly the descriptor the admin reviewed: `descriptorHash` must be the hash
   * awaiting approval (a pending changed descriptor, else the pinned one), or the call is refused as
   * stale. Pins that hash (so the next load keeps the version), makes the version ACTIVE and lets its
   * loaded code run. Releases a QUARANTINED version; the findings stay on record.
   */
  async approveVersion(principal: Principal, toolId: string, version: string, descriptorHash: string): Promise<ToolView> {
    this.access.assertPlatformAdmin(principal, 'approving a tool version');
    if (!HASH_PATTERN.test(descriptorHash)) {
      throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, 'descriptorHash must be a sha256 in lowercase hex', [{ path: '/descriptorHash', message: 'must be 64 lowercase hex digits' }]);
    }
    const repo = this.dataSource.getRepository(ToolVersionEntity);
    const row = await repo.findOneBy({ toolId, version });
    if (!row) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool ${toolId}@${version} not found`);
    const awaiting = row.pendingDescriptorHash ?? row.descriptorHash;
    const stale = () =>
      new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `${toolId}@${version} now has descriptor ${awaiting}, not ${descriptorHash}: review it and approve that hash`, [
        { path: '/descriptorHash', message: `the descriptor awaiting approval is ${awaiting}` },
      ]);
    if (descriptorHash !== awaiting) throw stale();
    const pending = row.pendingDescriptorHash !== null && row.pendingDescriptor !== null ? row.pendingDescriptor : null;
    const approved: Partial<ToolVersionEntity> = {
      state: ToolVersionState.ACTIVE,
      stateReason: null,
      approvedBy: `${principal.tenant}/${principal.subject}`,
      approvedAt: Date.now(),
      ...(pending && { descriptorHash, descriptor: pending, risk: pending.permissions.risk, pendingDescriptorHash: null, pendingDescriptor: null }),
    };
    // Only if no load changed the descriptor since it was read: otherwise the admin approved something else.
    const result = await repo.update({ id: row.id, descriptorHash: row.descriptorHash, pendingDescriptorHash: row.pendingDescriptorHash ?? IsNull() }, asPatch(approved));
    if (result.affected === 0) throw stale();
    const key = versionKey(toolId, version);
    const held = this.held.get(key);
    if (held?.hash === descriptorHash) {
      this.manifests.set(key, held.manifest);
      this.held.delete(key);
    }
    this.logger.log({ tool: key, descriptorHash, by: approved.approvedBy }, 'tool version approved');
    await this.refresh();
    this.changed.next();
    await this.tellReplicas();
    return this.toolFor(toolId, principal.tenant) as ToolView;
  }

  /** Other replicas on the shared PostgreSQL read the version states again (a notice sent after the change committed). */
  private async tellReplicas(): Promise<void> {
    if (!this.replicas?.shared) return;
    await this.dataSource.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNELS.catalog, this.replicas.catalogPayload()]).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'telling other replicas about a catalog change failed; they see it at their next load');
    });
  }

  /** Tells subscribers (the index sync) that something they derive from the catalog changed, e.g. a tool's usage examples. */
  notifyChanged(): void {
    this.changed.next();
  }

  /** One tool as a tenant sees it: the platform's view unless the tenant set its own version states. */
  private toolFor(toolId: string, tenant: string): ToolView | undefined {
    return this.tenantTools.get(tenant)?.get(toolId) ?? this.tools.get(toolId);
  }

  private viewsFor(tenant: string): ToolView[] {
    const own = this.tenantTools.get(tenant);
    return [...this.tools.values()].map((tool) => own?.get(tool.id) ?? tool);
  }

  private visible(principal: Principal, tool: ToolView): boolean {
    return this.access.can(principal, 'discover', tool.id, this.shown(tool).risk);
  }

  /** The version whose descriptor stands for the tool: the active one, else the newest. */
  private shown(tool: ToolView): ToolVersionView {
    return tool.active ?? tool.versions[0];
  }

  /**
   * Package versions on disk that a full pass of the npm source no longer found (replaced in place,
   * uninstalled): MISSING, and their code is no longer offered. Their tool rows stay on record.
   */
  private async markMissing(found: readonly PluginLoadResult[]): Promise<void> {
    const seen = new Set(found.flatMap((result) => (result.identity ? [`${result.identity.name}@${result.identity.version}`] : [])));
    const repo = this.dataSource.getRepository(PluginEntity);
    for (const row of await repo.find()) {
      if (row.status === PluginStatus.MISSING || !isAbsolute(row.path) || seen.has(`${row.packageName}@${row.version}`)) continue;
      this.unload(row.namespace, row.version);
      await repo.update({ id: row.id }, { status: PluginStatus.MISSING, error: null });
      this.logger.log({ plugin: `${row.packageName}@${row.version}`, path: row.path }, 'plugin version no longer found on disk');
    }
  }

  /** `fromDisk`: an npm package, whose failed load means the files there now are not what was loaded before. */
  private async record(result: PluginLoadResult, fromDisk: boolean): Promise<void> {
    if (!result.ok) {
      this.logger.warn({ plugin: result.identity?.name ?? result.dir, error: result.error.describe() }, 'plugin skipped');
      if (result.identity) {
        // A package on disk that fails now is not what was loaded before: it stops being offered. A server or worker that failed may come back.
        if (fromDisk) this.unload(namespaceOfPackage(result.identity.name), result.identity.version);
        await this.upsertPlugin(this.dataSource.manager, result.dir, result.identity, PluginStatus.FAILED, result.error, 0);
      }
      return;
    }
    try {
      const { runnable, held } = await transaction(this.dataSource, (tx) => this.register(tx, result));
      // A tool the package (or server) no longer offers stops being loaded; its rows stay on record.
      this.unload(result.namespace, result.identity.version, new Set([...runnable.keys(), ...held.keys()]));
      for (const [key, manifest] of runnable) {
        this.manifests.set(key, manifest);
        this.held.delete(key);
      }
      for (const [key, hold] of held) {
        this.manifests.delete(key);
        this.held.set(key, hold);
      }
    } catch (error) {
      const typed = ToolgateError.is(error) ? error : new ToolgateError(ErrorCode.PLUGIN_INVALID, (error as Error).message, [], { cause: error });
      this.logger.warn({ plugin: result.identity.name, error: typed.describe() }, 'plugin skipped');
      if (fromDisk) this.unload(result.namespace, result.identity.version);
      await this.upsertPlugin(this.dataSource.manager, result.dir, result.identity, PluginStatus.FAILED, typed, 0);
    }
  }

  /**
   * Stores the plugin's tool versions. Returns the ones whose code may run (the pinned hash is loaded
   * and approved) and the ones held back: quarantined by the integrity scan, or changed without a
   * version bump (DISABLED, the new descriptor pending approval; the pinned one stays).
   */
  private async register(tx: EntityManager, plugin: LoadedPlugin): Promise<Registration> {
    const runnable = new Map<string, ToolManifest>();
    const held = new Map<string, HeldManifest>();
    const { name: packageName, version } = plugin.identity;
    const owner = await tx
      .getRepository(PluginEntity)
      .createQueryBuilder('p')
      .where('p.namespace = :ns AND p.package_name <> :pkg AND p.status = :loaded', { ns: plugin.namespace, pkg: packageName, loaded: PluginStatus.LOADED })
      .getOne();
    if (owner) {
      throw new ToolgateError(ErrorCode.PLUGIN_INVALID, `namespace "${plugin.namespace}" already belongs to package ${owner.packageName}`, [
        { path: '/name', message: `tool ids ${plugin.namespace}/* are taken by ${owner.packageName}` },
      ]);
    }
    const repo = tx.getRepository(ToolVersionEntity);
    for (const manifest of plugin.tools) {
      const toolId = formatToolId(plugin.namespace, manifest.name);
      const key = versionKey(toolId, version);
      const descriptor = toDescriptor(manifest);
      const hash = descriptorHash(descriptor);
      const findings = scanDescriptor(descriptor);
      const existing = await repo.findBy({ toolId });
      const same = existing.find((v) => v.version === version);
      const changed = same !== undefined && same.descriptorHash !== hash;
      const followed = changed && this.options.followDescriptorEdits === true && findings.length === 0;
      let state: ToolVersionState;
      if (!same) {
        state = findings.length > 0 ? ToolVersionState.QUARANTINED : existing.length === 0 ? ToolVersionState.ACTIVE : this.options.newVersionState;
        await repo.save(
          repo.create({
            toolId,
            namespace: plugin.namespace,
            name: manifest.name,
            version,
            packageName,
            state,
            stateReason: state === ToolVersionState.QUARANTINED ? this.quarantineReason(findings, hash) : null,
            descriptorHash: hash,
            risk: manifest.permissions.risk,
            descriptor,
            pendingDescriptorHash: null,
            pendingDescriptor: null,
            integrityFindings: findings,
            approvedBy: null,
            approvedAt: null,
          }),
        );
      } else if (followed) {
        // Dev mode: the author's edit is the descriptor now; nothing waits for an approval.
        await repo.update({ id: same.id }, asPatch({ descriptorHash: hash, descriptor, pendingDescriptorHash: null, pendingDescriptor: null, integrityFindings: [] }));
        state = same.state;
      } else if (changed) {
        // The same version now describes itself differently: keep the pinned descriptor, stop offering it until an admin approves the new one.
        state = findings.length > 0 ? ToolVersionState.QUARANTINED : ToolVersionState.DISABLED;
        if (same.pendingDescriptorHash !== hash || same.state !== state) {
          const reason = `descriptor changed without a version bump (pinned ${same.descriptorHash}, loaded ${hash})${findings.length > 0 ? `; ${findingsSummary(findings)}` : ''}; approve hash ${hash} to enable`;
          await repo.update({ id: same.id }, asPatch({ state, stateReason: clip(reason), pendingDescriptorHash: hash, pendingDescriptor: descriptor, integrityFindings: findings }));
          this.logger.warn({ tool: key, pinned: same.descriptorHash, loaded: hash, findings: findings.length }, 'descriptor changed without a version bump: version held until approved');
        }
      } else {
        state = await this.recheckPinned(tx, same, findings, hash);
      }
      if (!same && state === ToolVersionState.QUARANTINED) this.logger.warn({ tool: key, findings }, 'tool version quarantined');
      if ((changed && !followed) || state === ToolVersionState.QUARANTINED) {
        held.set(key, { manifest, hash });
      } else {
        runnable.set(key, manifest);
      }
    }
    await this.upsertPlugin(tx, plugin.dir, plugin.identity, PluginStatus.LOADED, null, plugin.tools.length, plugin.code ?? null);
    return { runnable, held };
  }

  /**
   * The loaded descriptor is the pinned one. A pending change is dropped (the plugin went back), and
   * a pin no admin approved is scanned again: rows older than the scan, or rules added since, may
   * quarantine it. Returns the version's state afterwards.
   */
  private async recheckPinned(tx: EntityManager, row: ToolVersionEntity, findings: IntegrityFinding[], hash: string): Promise<ToolVersionState> {
    const patch: Partial<ToolVersionEntity> = {};
    const acceptable = row.approvedBy !== null || findings.length === 0;
    if (row.pendingDescriptorHash !== null) {
      Object.assign(patch, { pendingDescriptorHash: null, pendingDescriptor: null, integrityFindings: findings });
      if (row.state === ToolVersionState.QUARANTINED && acceptable) patch.state = ToolVersionState.DISABLED;
      if ((patch.state ?? row.state) === ToolVersionState.DISABLED) patch.stateReason = 'the pinned descriptor is loaded again; enable the version to offer it';
    }
    if (!acceptable && row.state !== ToolVersionState.QUARANTINED) {
      Object.assign(patch, { state: ToolVersionState.QUARANTINED, stateReason: this.quarantineReason(findings, hash), integrityFindings: findings });
      this.logger.warn({ tool: versionKey(row.toolId, row.version), findings }, 'tool version quarantined');
    }
    if (Object.keys(patch).length > 0) await tx.getRepository(ToolVersionEntity).update({ id: row.id }, asPatch(patch));
    return patch.state ?? row.state;
  }

  private quarantineReason(findings: IntegrityFinding[], hash: string): string {
    return clip(`quarantined: ${findingsSummary(findings)}; an admin approving hash ${hash} releases it`);
  }

  /** Drops the loaded (and held) manifests of one package version, but for the tools in `keep`. */
  private unload(namespace: string, version: string, keep: ReadonlySet<string> = new Set()): void {
    const suffix = `@${version}`;
    for (const map of [this.manifests, this.held] as Map<string, unknown>[]) {
      for (const key of map.keys()) if (key.endsWith(suffix) && key.startsWith(`${namespace}/`) && !keep.has(key)) map.delete(key);
    }
  }

  private async upsertPlugin(
    tx: EntityManager,
    path: string,
    { name: packageName, version }: { name: string; version: string },
    status: PluginStatus,
    error: ToolgateError | null,
    toolCount: number,
    code: PluginCode | null = null,
  ): Promise<void> {
    const repo = tx.getRepository(PluginEntity);
    const row = (await repo.findOneBy({ packageName, version })) ?? repo.create({ packageName, version });
    Object.assign(row, {
      namespace: namespaceOfPackage(packageName),
      path,
      status,
      toolCount,
      code,
      error: error ? { code: error.code, message: error.message, details: error.details } : null,
    });
    await repo.save(row);
  }

  private unnamedFailure(dir: string, error: ToolgateError, label = '(invalid package.json)'): PluginView {
    return {
      packageName: label,
      version: '',
      namespace: '',
      path: dir,
      status: PluginStatus.FAILED,
      error: { code: error.code, message: error.message, details: error.details },
      code: null,
      toolCount: 0,
      updatedAt: new Date(),
    };
  }

  /** Rebuilds the read snapshot from the database. */
  private async refresh(): Promise<void> {
    const rows = await this.dataSource.getRepository(ToolVersionEntity).find();
    const tools = new Map<string, ToolView>();
    for (const row of rows) {
      const view: ToolVersionView = { ...row, integrityFindings: row.integrityFindings ?? [], loaded: this.manifests.has(versionKey(row.toolId, row.version)) };
      const tool = tools.get(row.toolId) ?? { id: row.toolId, namespace: row.namespace, name: row.name, active: null, versions: [] };
      tool.versions.push(view);
      tools.set(row.toolId, tool);
    }
    for (const tool of tools.values()) {
      tool.versions.sort(newestFirst);
      tool.active = activeOf(tool.versions);
    }
    this.tools = new Map([...tools.entries()].sort(([a], [b]) => a.localeCompare(b)));
    const tenantTools = new Map<string, Map<string, ToolView>>();
    const own = new Map<string, TenantToolStateEntity>();
    for (const state of await this.dataSource.getRepository(TenantToolStateEntity).find()) own.set(`${state.tenant} ${versionKey(state.toolId, state.version)}`, state);
    for (const state of own.values()) {
      const platform = this.tools.get(state.toolId);
      const views = tenantTools.get(state.tenant) ?? new Map<string, ToolView>();
      tenantTools.set(state.tenant, views);
      if (!platform || views.has(platform.id)) continue;
      const versions = platform.versions.map((v) => effectiveVersion(v, state.tenant, own.get(`${state.tenant} ${versionKey(v.toolId, v.version)}`)));
      views.set(platform.id, { ...platform, versions, active: activeOf(versions) });
    }
    this.tenantTools = tenantTools;
    const plugins = await this.dataSource.getRepository(PluginEntity).find({ order: { packageName: 'ASC' } });
    this.plugins = plugins.sort((a, b) => a.packageName.localeCompare(b.packageName) || semver.compare(a.version, b.version)).map(({ id: _id, createdAt: _c, ...p }) => p);
  }
}
