import { randomUUID } from 'node:crypto';
import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/** A caller's conversation state (entities, tools used, results), owned by one tenant and subject. */
@Entity('planning_sessions')
@Unique('uq_planning_sessions_owner_session', ['tenant', 'subject', 'sessionId'])
export class PlanningSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Column({ type: 'varchar', length: 200 })
  tenant!: string;

  @Column({ type: 'varchar', length: 200 })
  subject!: string;

  @Column({ name: 'session_id', type: 'varchar', length: 128 })
  sessionId!: string;

  /** JSON written by the planner's session logic; bounded in size by the store. */
  @Column({ type: 'text' })
  state!: string;

  /** Set in code on every write; idle sessions past the TTL are pruned. */
  @Index('ix_planning_sessions_updated_at')
  @Column({ name: 'updated_at', type: 'bigint', transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) } })
  updatedAt!: number;
}
