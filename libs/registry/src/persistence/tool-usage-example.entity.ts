import { randomUUID } from 'node:crypto';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

export type UsageExampleSource = 'import' | 'execution';

/** The `tenant` of platform-wide examples (imported files): every tenant's searches use them. */
export const PLATFORM_EXAMPLES = '';

/**
 * A query that led to (or was labelled with) a call of one tool; fed into that tool's index document.
 * Learned examples belong to the tenant whose run taught them and shape only that tenant's searches.
 */
@Entity('tool_usage_examples')
@Unique('uq_tool_usage_examples_tool_tenant_normalized', ['toolId', 'tenant', 'normalized'])
// The bound's reads are per scope: a tenant's counts per tool, a tool's oldest within a tenant.
@Index('ix_tool_usage_examples_tenant_tool_created', ['tenant', 'toolId', 'createdAt'])
export class ToolUsageExampleEntity {
  /** Generated in code so SQLite and PostgreSQL need no uuid extension. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Column({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  /** The tenant that taught it, or `PLATFORM_EXAMPLES` (not null, so the unique key holds for platform rows too). */
  @Column({ type: 'varchar', length: 200, default: PLATFORM_EXAMPLES })
  tenant!: string;

  @Column({ type: 'text' })
  query!: string;

  /** Lowercased, spacing collapsed: the de-duplication key. */
  @Column({ type: 'varchar', length: 500 })
  normalized!: string;

  @Column({ type: 'varchar', length: 16 })
  source!: UsageExampleSource;

  /** Set in code, one instant per write: the per-tool bound drops the oldest writes first. */
  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;
}
