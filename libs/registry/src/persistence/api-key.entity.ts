import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An API key is stored only as its sha256; `label` is a non-secret hint for operators. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ name: 'key_sha256', type: 'varchar', length: 64 })
  keySha256!: string;

  @Column({ type: 'varchar', length: 32 })
  label!: string;

  @Column({ type: 'varchar', length: 128 })
  tenant!: string;

  @Column({ type: 'varchar', length: 128 })
  subject!: string;

  @Column({ type: 'simple-json' })
  roles!: string[];
}
