import { randomUUID } from 'node:crypto';
import type { Risk, ToolDescriptor } from '@toolgate/sdk';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';

export enum ToolVersionState {
  ACTIVE = 'ACTIVE',
  CANARY = 'CANARY',
  DISABLED = 'DISABLED',
}

/** One version of one tool, with the descriptor pinned by its hash when first registered. */
@Entity('tool_versions')
@Unique('uq_tool_versions_tool_version', ['toolId', 'version'])
export class ToolVersionEntity {
  /** Generated in code so SQLite and PostgreSQL need no uuid extension. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Index('ix_tool_versions_tool_id')
  @Column({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ type: 'varchar', length: 128 })
  namespace!: string;

  @Index('ix_tool_versions_name')
  @Column({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 64 })
  version!: string;

  @Column({ name: 'package_name', type: 'varchar', length: 214 })
  packageName!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: ToolVersionState;

  /** Why the state was last set by the system rather than an operator (e.g. a changed descriptor). */
  @Column({ name: 'state_reason', type: 'varchar', length: 500, nullable: true })
  stateReason!: string | null;

  @Column({ name: 'descriptor_hash', type: 'varchar', length: 64 })
  descriptorHash!: string;

  @Column({ type: 'varchar', length: 16 })
  risk!: Risk;

  @Column({ type: 'simple-json' })
  descriptor!: ToolDescriptor;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;
}
