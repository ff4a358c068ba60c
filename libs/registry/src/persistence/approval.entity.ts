import type { ApprovalStatus } from '@toolgate/sdk';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/** A step that waited for a person: who decided, when, and what they said. */
@Entity('approvals')
export class ApprovalEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @PrimaryColumn({ name: 'step_id', type: 'varchar', length: 64 })
  stepId!: string;

  @Column({ type: 'varchar', length: 300 })
  tool!: string;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: ApprovalStatus;

  @Column({ name: 'requested_at', type: 'bigint', transformer: epochMillis })
  requestedAt!: number;

  @Column({ name: 'decided_at', type: 'bigint', nullable: true, transformer: epochMillis })
  decidedAt!: number | null;

  @Column({ name: 'decided_by_tenant', type: 'varchar', length: 200, nullable: true })
  decidedByTenant!: string | null;

  @Column({ name: 'decided_by_subject', type: 'varchar', length: 200, nullable: true })
  decidedBySubject!: string | null;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;
}
