import type { DataSource, EntityManager } from 'typeorm';

const tails = new WeakMap<DataSource, Promise<unknown>>();

/**
 * Runs `work` alone among the SQLite database's transactions. TypeORM's SQLite driver has one
 * connection and no lock: two `dataSource.transaction` calls that start in the same tick both see no
 * transaction open and both send BEGIN ("cannot start a transaction within a transaction"), or one
 * joins the other's and goes down with its rollback. On PostgreSQL (a pool, real isolation) it just runs.
 */
export function exclusively<T>(dataSource: DataSource, work: () => T | Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3') return Promise.resolve().then(work);
  const result = (tails.get(dataSource) ?? Promise.resolve()).then(work);
  tails.set(
    dataSource,
    result.catch(() => undefined),
  );
  return result;
}

/** `dataSource.transaction`, one at a time on SQLite (see `exclusively`). */
export function transaction<T>(dataSource: DataSource, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return exclusively(dataSource, () => dataSource.transaction(work));
}
