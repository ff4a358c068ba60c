import { randomUUID } from 'node:crypto';
import { Column, CreateDateColumn, Entity, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';

export enum PluginStatus {
  LOADED = 'LOADED',
  FAILED = 'FAILED',
  /** Not found on disk at the last load (uninstalled, or replaced in place by another version). */
  MISSING = 'MISSING',
}

export interface PluginCode {
  root: string;
  hash: string;
}

/** One plugin package version as last seen by discovery. */
@Entity('plugins')
@Unique('uq_plugins_package_version', ['packageName', 'version'])
export class PluginEntity {
  /** Generated in code so SQLite and PostgreSQL need no uuid extension. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string = randomUUID();

  @Column({ name: 'package_name', type: 'varchar', length: 214 })
  packageName!: string;

  @Column({ type: 'varchar', length: 64 })
  version!: string;

  @Column({ type: 'varchar', length: 128 })
  namespace!: string;

  @Column({ type: 'varchar', length: 1024 })
  path!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: PluginStatus;

  @Column({ type: 'simple-json', nullable: true })
  error!: { code: string; message: string; details: { path: string; message: string }[] } | null;

  /** The code this version loaded: the tree its hash covers (the package folder, or an install's node_modules) and that hash; null when it had no code here (an MCP server, a remote worker) or was too large to hash. */
  @Column({ type: 'simple-json', nullable: true })
  code!: PluginCode | null;

  @Column({ name: 'tool_count', type: 'integer', default: 0 })
  toolCount!: number;

  @CreateDateColumn({ name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt!: Date;
}
