import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * The PostgreSQL that `npm test` starts. Never skipped: without it the PostgreSQL half of the suite
 * fails with a message saying how to provide one.
 */
export function testPostgresUrl(): string {
  const url = process.env.TOOLGATE_TEST_DATABASE_URL;
  if (!url) throw new Error('TOOLGATE_TEST_DATABASE_URL is not set: run the suite with `npm test` (it starts PostgreSQL) or point it at a server');
  return url;
}

/** A fresh database per test file, dropped afterwards. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(testPostgresUrl());
  const name = `tg_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: base.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export type DatabaseKind = 'sqlite' | 'postgres';

/** Database options for the registry: a temporary SQLite file, or a fresh PostgreSQL database. */
export async function testDatabase(kind: DatabaseKind) {
  if (kind === 'sqlite') {
    const path = join(mkdtempSync(join(tmpdir(), 'toolgate-db-')), 'toolgate.db');
    return { options: { type: 'sqlite' as const, path }, env: {}, drop: async () => {} };
  }
  const db = await createPostgresDatabase();
  return { options: { type: 'postgres' as const, url: db.url }, env: { DATABASE_URL: db.url }, drop: db.drop };
}
