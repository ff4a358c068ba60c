import { randomUUID } from 'node:crypto';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

export type UsageExampleSource = 'import' | 'execution';

/** A query that led to (or was labelled with) a call of one tool; fed into that tool's index document. */
@Entity('tool_usage_examples')
@Unique('uq_tool_usage_examples_tool_normalized', ['toolId', 'normalized'])
export class ToolUsageExampleEntity {
  /** Generated in code so SQLite and PostgreSQL need no uuid extension. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Index('ix_tool_usage_examples_tool_id')
  @Column({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

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
