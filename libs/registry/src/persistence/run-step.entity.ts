import type { StepStatus } from '@toolgate/sdk';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';

/** A run's step as it stands: status, attempts, output or error. */
@Entity('run_steps')
export class RunStepEntity {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 64 })
  runId!: string;

  @PrimaryColumn({ name: 'step_id', type: 'varchar', length: 64 })
  stepId!: string;

  /** Order within the run: the plan's order, then steps a re-plan added. */
  @Column({ type: 'integer' })
  position!: number;

  @Column({ type: 'varchar', length: 300 })
  tool!: string;

  @Column({ type: 'varchar', length: 24 })
  status!: StepStatus;

  @Column({ type: 'integer' })
  attempts!: number;

  /** JSON of the tool's output. */
  @Column({ type: 'text', nullable: true })
  output!: string | null;

  /** JSON of an StepError. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ name: 'fallback_of', type: 'varchar', length: 300, nullable: true })
  fallbackOf!: string | null;

  /** JSON array of step ids. */
  @Column({ name: 'depends_on', type: 'text' })
  dependsOn!: string;

  @Column({ name: 'started_at', type: 'bigint', nullable: true, transformer: epochMillis })
  startedAt!: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;
}
