import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/** One try of one step's tool (retries and fallbacks each add one), keyed by the event that reported it. */
@Entity('step_attempts')
@Index('ix_step_attempts_run_step', ['runId', 'stepId'])
export class StepAttemptEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @PrimaryColumn({ type: 'integer' })
  seq!: number;

  @Column({ name: 'step_id', type: 'varchar', length: 64 })
  stepId!: string;

  @Column({ type: 'varchar', length: 300 })
  tool!: string;

  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'varchar', length: 16 })
  outcome!: 'SUCCEEDED' | 'FAILED';

  /** JSON of an StepError. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ type: 'bigint', transformer: epochMillis })
  at!: number;

  /** The plugin code the attempt ran (PluginEntity.code's hash); null for tools without package code. */
  @Column({ name: 'code_hash', type: 'varchar', length: 64, nullable: true })
  codeHash!: string | null;
}
