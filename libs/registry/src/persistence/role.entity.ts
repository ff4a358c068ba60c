import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Grant } from '../access/policy.types';

/** A role as loaded from the policy file; the file is the source of truth, this is its stored copy. */
@Entity('roles')
export class RoleEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'boolean', default: false })
  admin!: boolean;

  @Column({ type: 'simple-json' })
  grants!: Grant[];

  /** Implies admin; see RoleDefinition. */
  @Column({ name: 'platform_admin', type: 'boolean', default: false })
  platformAdmin!: boolean;
}
