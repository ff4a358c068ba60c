import type { RunStatus } from '@toolgate/sdk';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/** One run of a plan: kept current from its events (the events stay the record). */
@Entity('runs')
@Index('ix_runs_owner_status_started', ['tenant', 'subject', 'status', 'startedAt'])
@Index('ix_runs_tenant_started', ['tenant', 'startedAt'])
@Index('ix_runs_status_heartbeat', ['status', 'heartbeatAt'])
@Index('ix_runs_status_finished', ['status', 'finishedAt'])
export class RunEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'plan_id', type: 'varchar', length: 64 })
  planId!: string;

  @Column({ type: 'varchar', length: 200 })
  tenant!: string;

  @Column({ type: 'varchar', length: 200 })
  subject!: string;

  @Column({ type: 'varchar', length: 24 })
  status!: RunStatus;

  @Column({ name: 'trace_id', type: 'varchar', length: 64 })
  traceId!: string;

  @Column({ type: 'text', nullable: true })
  task!: string | null;

  @Column({ type: 'integer' })
  replans!: number;

  /** Why the run ended or paused as it did, when that is not plain success. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** Sequence number of the run's last event; the next event takes the next one. */
  @Column({ name: 'last_seq', type: 'integer' })
  lastSeq!: number;

  @Column({ name: 'started_at', type: 'bigint', transformer: epochMillis })
  startedAt!: number;

  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: epochMillis })
  finishedAt!: number | null;

  /** The process (instance id) running or holding the run; null once none does (released, or recorded before owners were). */
  @Column({ name: 'owner_instance', type: 'varchar', length: 64, nullable: true })
  ownerInstance!: string | null;

  /** When the owner last said it is alive; a run whose owner stopped saying so is recovered by another process. */
  @Column({ name: 'heartbeat_at', type: 'bigint', nullable: true, transformer: epochMillis })
  heartbeatAt!: number | null;

  /** JSON of what resuming the run after a restart needs (the plan in force, the owner's roles); the executor's shape. */
  @Column({ type: 'text', nullable: true })
  resume!: string | null;
}
