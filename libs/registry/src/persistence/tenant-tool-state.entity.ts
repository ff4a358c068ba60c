import { randomUUID } from 'node:crypto';
import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { epochMillis } from './epoch-millis.transformer';
import type { ToolVersionState } from './tool-version.entity';

/**
 * A tenant admin's state for one tool version, over the platform's rollout state: it applies to that
 * tenant's callers only. A version the platform disabled or quarantined stays off whatever this says.
 */
@Entity('tenant_tool_states')
@Unique('uq_tenant_tool_states_tenant_version', ['tenant', 'toolId', 'version'])
export class TenantToolStateEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Index('ix_tenant_tool_states_tenant')
  @Column({ type: 'varchar', length: 64 })
  tenant!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ type: 'varchar', length: 64 })
  version!: string;

  /** ACTIVE, CANARY or DISABLED (QUARANTINED is the platform's integrity scan's only). */
  @Column({ type: 'varchar', length: 16 })
  state!: ToolVersionState;

  /** `tenant/subject` of the admin who set it. */
  @Column({ name: 'set_by', type: 'varchar', length: 300 })
  setBy!: string;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMillis })
  updatedAt!: number;
}
