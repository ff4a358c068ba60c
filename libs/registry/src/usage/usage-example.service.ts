import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type ErrorDetail, ToolgateError } from '@toolgate/sdk';
import { DataSource, type EntityManager, In } from 'typeorm';
import { CatalogService } from '../catalog/catalog.service';
import { PLATFORM_EXAMPLES, ToolUsageExampleEntity, type UsageExampleSource } from '../persistence/tool-usage-example.entity';
import { ToolVersionEntity } from '../persistence/tool-version.entity';
import { transaction } from '../persistence/transaction.queue';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../registry.module-definition';
import { usageLevel } from './usage.bound';
import { invalidLines, normalizeExampleQuery, queryProblem, readExampleFile, toolIdProblem } from './usage-example-file.parser';

/**
 * Examples kept per scope, over all its tools: the platform's imported ones, and each tenant's learned
 * ones. A bound on memory (each example is a vector in the index), not on evidence: a tool keeps every
 * example until the scope is full, and then only the most-used tools lose their oldest.
 */
export interface UsageExampleBounds {
  platform: number;
  perTenant: number;
}

export const DEFAULT_USAGE_EXAMPLE_BOUNDS: UsageExampleBounds = { platform: 50_000, perTenant: 10_000 };
/** Ids per `IN (...)` list, well under the bind-parameter limits of SQLite and PostgreSQL. */
const CHUNK = 500;

export interface UsageExampleImportResult {
  /** New examples stored (duplicates of stored ones, or of earlier lines, are not). */
  imported: number;
  duplicates: number;
  /** Examples the scope's bound removed: the oldest of the most-used tools, stored ones before the file's own earlier lines. */
  dropped: number;
  /** The scope's bound (`TOOLGATE_USAGE_EXAMPLES_MAX` for imports). */
  bound: number;
  /** Distinct tools the file gave examples for. */
  tools: number;
}

export interface UsageExampleView {
  toolId: string;
  /** The tenant whose runs taught it; null for a platform-wide example (imported from a file). */
  tenant: string | null;
  query: string;
  source: UsageExampleSource;
  createdAt: Date;
}

const chunks = <T>(items: readonly T[]): T[][] => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));
const keyOf = (toolId: string, normalized: string) => `${toolId}\n${normalized}`;

/** Adds `value` to the list at `key` (in place: every sync appends tens of thousands of rows). */
function append<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

interface NewExample {
  toolId: string;
  query: string;
}

/**
 * Queries that led to a tool, imported from a labelled file (platform-wide: every tenant's searches use
 * them) or learned from a tenant's runs (that tenant's searches only: one tenant can neither read nor
 * steer what another learned). The index adds them to the tool's document. De-duplicated per tool and
 * scope (case and spacing ignored; a learned query the platform already has adds nothing) and bounded
 * per scope (`UsageExampleBounds`): one tenant's flood never pushes out the platform's examples or
 * another tenant's, and inside a scope it trims the flooded tool before any other.
 */
@Injectable()
export class UsageExampleService {
  private readonly logger = new Logger('UsageExamples');
  /** Last write time handed out; strictly increasing, so successive writes of this process never tie. */
  private lastWrite = 0;

  private readonly bounds: UsageExampleBounds;

  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    @Inject(REGISTRY_OPTIONS) options: Pick<RegistryModuleOptions, 'usageExamples'>,
  ) {
    this.bounds = options.usageExamples ?? DEFAULT_USAGE_EXAMPLE_BOUNDS;
  }

  /**
   * Stores one example learned from a run of `tenant`; false when the tool already has it for that
   * tenant or platform-wide. Does not re-sync the index: a caller that records many (the run learner)
   * calls `catalog.notifyChanged()` once it is done.
   */
  async record(toolId: string, query: string, tenant: string): Promise<boolean> {
    const problems = [
      { path: '/tool', message: toolIdProblem(toolId, 'tool') },
      { path: '/query', message: queryProblem(query) },
      { path: '/tenant', message: tenant.trim() === '' ? 'a learned example needs the tenant that taught it' : null },
    ].filter((p): p is ErrorDetail => p.message !== null);
    if (problems.length > 0) throw new ToolgateError(ErrorCode.INVALID_ARGUMENTS, `invalid usage example: ${problems.map((p) => p.message).join('; ')}`, problems);
    if ((await this.unknownTools([toolId])).size > 0) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool "${toolId}" not found`);
    const { imported } = await this.store([{ toolId, query: query.trim() }], 'execution', tenant);
    return imported === 1;
  }

  /**
   * Imports a labelled JSON Lines file (see `readExampleFile`). All or nothing: a bad line or an
   * unknown tool id stores nothing. The index re-syncs afterwards.
   */
  async importFile(path: string, options: { split?: string } = {}): Promise<UsageExampleImportResult> {
    const examples = await readExampleFile(path, options.split);
    const unknown = await this.unknownTools(examples.map((e) => e.toolId));
    if (unknown.size > 0) {
      throw invalidLines(examples.filter((e) => unknown.has(e.toolId)).map((e) => ({ path: `${path}:${e.line}`, message: `unknown tool "${e.toolId}": no such tool in the catalog` })));
    }
    const stored = await this.store(examples, 'import', PLATFORM_EXAMPLES);
    const result = { ...stored, tools: new Set(examples.map((e) => e.toolId)).size };
    this.logger.log({ file: path, split: options.split, ...result }, 'usage examples imported');
    this.catalog.notifyChanged();
    return result;
  }

  /**
   * Each tool's platform-wide example queries, or with `tenant` only what that tenant's runs taught,
   * oldest write first (the order `withUsageQueries` expects); tools without any are absent.
   */
  async examplesFor(toolIds: readonly string[], tenant: string | null = null): Promise<Map<string, string[]>> {
    const byTool = new Map<string, string[]>();
    for (const row of await this.rowsOf(toolIds, tenant ?? PLATFORM_EXAMPLES)) append(byTool, row.toolId, row.query);
    return byTool;
  }

  /** What each tenant's runs taught about each tool, oldest write first; platform-wide examples are not here. */
  async learnedFor(toolIds: readonly string[]): Promise<Map<string, Map<string, string[]>>> {
    const byTool = new Map<string, Map<string, string[]>>();
    for (const row of await this.rowsOf(toolIds, null)) {
      const byTenant = byTool.get(row.toolId) ?? new Map<string, string[]>();
      byTool.set(row.toolId, byTenant);
      append(byTenant, row.tenant, row.query);
    }
    return byTool;
  }

  /** Stored examples, by tool and then oldest write first; with `tenant`, only what that tenant's runs taught. */
  async list(filter: { toolId?: string; tenant?: string } = {}): Promise<UsageExampleView[]> {
    const rows = await this.dataSource.getRepository(ToolUsageExampleEntity).find({
      where: { ...(filter.toolId === undefined ? {} : { toolId: filter.toolId }), ...(filter.tenant === undefined ? {} : { tenant: filter.tenant }) },
      order: { toolId: 'ASC', createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map(({ toolId, tenant, query, source, createdAt }) => ({ toolId, tenant: tenant === PLATFORM_EXAMPLES ? null : tenant, query, source, createdAt }));
  }

  /**
   * The rows of these tools in one scope (null: what every tenant learned, no platform row), oldest write
   * first. Raw rows, not entities: every index sync reads them all, and hydrating tens of thousands of
   * entities cost more than the query.
   */
  private async rowsOf(toolIds: readonly string[], tenant: string | null): Promise<{ toolId: string; tenant: string; query: string }[]> {
    const rows: { toolId: string; tenant: string; query: string }[] = [];
    for (const ids of chunks([...new Set(toolIds)])) {
      const query = this.dataSource
        .getRepository(ToolUsageExampleEntity)
        .createQueryBuilder('e')
        .select('e.tool_id', 'toolId')
        .addSelect('e.tenant', 'tenant')
        .addSelect('e.query', 'query')
        .where({ toolId: In(ids) })
        .orderBy('e.created_at', 'ASC')
        .addOrderBy('e.id', 'ASC');
      if (tenant === null) query.andWhere('e.tenant <> :platform', { platform: PLATFORM_EXAMPLES });
      else query.andWhere('e.tenant = :tenant', { tenant });
      rows.push(...(await query.getRawMany<{ toolId: string; tenant: string; query: string }>()));
    }
    return rows;
  }

  /** The ids among these that name no tool in the catalog (any version, any state). */
  private async unknownTools(toolIds: readonly string[]): Promise<Set<string>> {
    const unknown = new Set(toolIds);
    for (const ids of chunks([...unknown])) {
      const rows = await this.dataSource
        .getRepository(ToolVersionEntity)
        .createQueryBuilder('v')
        .select('DISTINCT v.tool_id', 'toolId')
        .where({ toolId: In(ids) })
        .getRawMany<{ toolId: string }>();
      for (const row of rows) unknown.delete(row.toolId);
    }
    return unknown;
  }

  /** Inserts the new examples of one scope and applies the scope's bound, in one transaction. */
  private async store(examples: readonly NewExample[], source: UsageExampleSource, tenant: string): Promise<Omit<UsageExampleImportResult, 'tools'>> {
    return transaction(this.dataSource, async (tx) => {
      const repo = tx.getRepository(ToolUsageExampleEntity);
      const toolIds = [...new Set(examples.map((e) => e.toolId))];
      const seen = new Set<string>();
      // A learned query the platform already has adds nothing; a platform import does not look at what tenants learned.
      const scopes = [...new Set([tenant, PLATFORM_EXAMPLES])];
      for (const ids of chunks(toolIds)) {
        const rows = await repo.find({ select: { toolId: true, normalized: true }, where: { toolId: In(ids), tenant: In(scopes) } });
        for (const row of rows) seen.add(keyOf(row.toolId, row.normalized));
      }
      const at = this.nextWriteTime();
      const fresh: ToolUsageExampleEntity[] = [];
      for (const { toolId, query } of examples) {
        const normalized = normalizeExampleQuery(query);
        if (seen.has(keyOf(toolId, normalized))) continue;
        seen.add(keyOf(toolId, normalized));
        fresh.push(repo.create({ toolId, tenant, query, normalized, source, createdAt: at }));
      }
      if (fresh.length === 0) return { imported: 0, duplicates: examples.length, dropped: 0, bound: this.boundOf(tenant) };
      const dropped = await this.applyBound(tx, fresh, tenant);
      const kept = fresh.filter((row) => !dropped.fresh.has(row));
      // A concurrent writer may have stored the same example since the read: ignoring the conflict keeps `record` idempotent.
      for (const rows of chunks(kept)) await repo.createQueryBuilder().insert().values(rows).orIgnore().execute();
      return { imported: fresh.length, duplicates: examples.length - fresh.length, dropped: dropped.stored + dropped.fresh.size, bound: this.boundOf(tenant) };
    });
  }

  private boundOf(tenant: string): number {
    return tenant === PLATFORM_EXAMPLES ? this.bounds.platform : this.bounds.perTenant;
  }

  /**
   * Keeps the scope within its bound once `fresh` is in: the tools with the most examples are trimmed
   * to a common level (`usageLevel`), oldest first — stored rows, then the write's own earlier lines
   * (one write shares one instant, so the database could not order those). Deletes the stored ones;
   * returns which fresh rows not to insert.
   */
  private async applyBound(tx: EntityManager, fresh: readonly ToolUsageExampleEntity[], tenant: string): Promise<{ stored: number; fresh: Set<ToolUsageExampleEntity> }> {
    const repo = tx.getRepository(ToolUsageExampleEntity);
    const dropped = { stored: 0, fresh: new Set<ToolUsageExampleEntity>() };
    // The usual case, a scope under its bound, costs one count on the tenant's index.
    if ((await repo.count({ where: { tenant } })) + fresh.length <= this.boundOf(tenant)) return dropped;
    const counts = await repo
      .createQueryBuilder('e')
      .select('e.tool_id', 'toolId')
      .addSelect('COUNT(*)', 'count')
      .where({ tenant })
      .groupBy('e.tool_id')
      .getRawMany<{ toolId: string; count: number | string }>();
    const stored = new Map(counts.map((row) => [row.toolId, Number(row.count)]));
    const written = new Map<string, ToolUsageExampleEntity[]>();
    for (const row of fresh) append(written, row.toolId, row);
    const tools = [...new Set([...stored.keys(), ...written.keys()])];
    const total = (toolId: string) => (stored.get(toolId) ?? 0) + (written.get(toolId)?.length ?? 0);
    const level = usageLevel(tools.map(total), this.boundOf(tenant));
    for (const toolId of tools) {
      const over = total(toolId) - level;
      if (over <= 0) continue;
      const fromStored = Math.min(stored.get(toolId) ?? 0, over);
      if (fromStored > 0) {
        const oldest = await repo.find({ select: { id: true }, where: { toolId, tenant }, order: { createdAt: 'ASC', id: 'ASC' }, take: fromStored });
        for (const rows of chunks(oldest.map((r) => r.id))) await repo.delete({ id: In(rows) });
        dropped.stored += oldest.length;
      }
      for (const row of (written.get(toolId) ?? []).slice(0, over - fromStored)) dropped.fresh.add(row);
    }
    return dropped;
  }

  private nextWriteTime(): Date {
    this.lastWrite = Math.max(Date.now(), this.lastWrite + 1);
    return new Date(this.lastWrite);
  }
}
