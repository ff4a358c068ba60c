import type { RunEventType } from '@toolgate/sdk';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/** The append-only record of a run: every event in order of `seq` (1, 2, 3, ... per run). */
@Entity('run_events')
export class RunEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @PrimaryColumn({ type: 'integer' })
  seq!: number;

  @Column({ type: 'varchar', length: 32 })
  type!: RunEventType;

  @Column({ type: 'bigint', transformer: epochMillis })
  at!: number;

  /** JSON of the whole event, exactly as recorded. */
  @Column({ type: 'text' })
  payload!: string;
}
