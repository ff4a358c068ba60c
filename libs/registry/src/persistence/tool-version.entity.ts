import { randomUUID } from 'node:crypto';
import type { Risk, ToolDescriptor } from '@toolgate/sdk';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { IntegrityFinding } from '../integrity/integrity.types';
import { epochMillis } from './epoch-millis.transformer';

export enum ToolVersionState {
  ACTIVE = 'ACTIVE',
  CANARY = 'CANARY',
  DISABLED = 'DISABLED',
  /** Set by the integrity scan only: its descriptor has hidden characters or text aimed at a model. */
  QUARANTINED = 'QUARANTINED',
}

/**
 * One version of one tool, with the descriptor pinned by its hash: when first registered, or when an
 * admin approves a changed (or quarantined) descriptor, which pins exactly the hash the admin approved.
 */
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

  /** A loaded descriptor whose hash differs from the pinned one: kept for review until an admin approves it. */
  @Column({ name: 'pending_descriptor_hash', type: 'varchar', length: 64, nullable: true })
  pendingDescriptorHash!: string | null;

  @Column({ name: 'pending_descriptor', type: 'simple-json', nullable: true })
  pendingDescriptor!: ToolDescriptor | null;

  /** What the integrity scan found in the newest loaded descriptor (pending, else pinned); empty when clean. */
  @Column({ name: 'integrity_findings', type: 'simple-json', nullable: true })
  integrityFindings!: IntegrityFinding[] | null;

  /** `tenant/subject` of the admin who approved the pinned hash; null when it was pinned at first registration. */
  @Column({ name: 'approved_by', type: 'varchar', length: 300, nullable: true })
  approvedBy!: string | null;

  @Column({ name: 'approved_at', type: 'bigint', nullable: true, transformer: epochMillis })
  approvedAt!: number | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;
}
