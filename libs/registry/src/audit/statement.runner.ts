import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource, QueryResult } from 'typeorm';
import { exclusively } from '../persistence/transaction.queue';

/** One SQL statement with `?` placeholders and its values, every value bound. */
export interface Statement {
  text: string;
  parameters: unknown[];
}

export interface StatementResult {
  rows: Record<string, unknown>[];
  affected: number;
}

/** Steps of one transaction: each yielded statement gets its result back; the return value is the transaction's. */
export type Statements<T> = Generator<Statement, T, StatementResult>;

/**
 * Runs `Statements` as one transaction, each statement prepared once and every value bound.
 *
 * Through TypeORM's query builder the SQLite driver writes numbers into the SQL text, so every event's
 * timestamps made a statement never seen before: prepared anew, and pushing the common ones out of the
 * statement cache, most of a one-step run's cost (bench/mcp). On SQLite the transaction runs
 * synchronously on the one connection, after any other writer's (`exclusively`), so no other query
 * can slip into it; on PostgreSQL it is a TypeORM transaction with `$n` placeholders.
 */
export class StatementRunner {
  private readonly sqlite: BetterSqlite3.Database | null;
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();
  private readonly numbered = new Map<string, string>();
  private readonly sqliteTransaction: (<T>(steps: Statements<T>) => T) | null;

  constructor(private readonly dataSource: DataSource) {
    this.sqlite = dataSource.options.type === 'better-sqlite3' ? (dataSource.driver as unknown as { databaseConnection: BetterSqlite3.Database }).databaseConnection : null;
    this.sqliteTransaction = this.sqlite ? (this.sqlite.transaction((steps: Statements<unknown>) => this.runOnSqlite(steps)) as <T>(steps: Statements<T>) => T) : null;
  }

  async run<T>(steps: Statements<T>): Promise<T> {
    const sqliteTransaction = this.sqliteTransaction;
    if (!sqliteTransaction) return this.runOnPostgres(steps);
    // After any other writer's transaction on the one connection (it awaits between its statements): ours never joins one,
    // not even one opened around the queue.
    return exclusively(this.dataSource, async () => {
      while (this.sqlite?.inTransaction) await new Promise<void>((resolve) => setImmediate(resolve));
      return sqliteTransaction(steps);
    });
  }

  private runOnSqlite<T>(steps: Statements<T>): T {
    let next = steps.next();
    while (!next.done) {
      const { text, parameters } = next.value;
      let statement = this.prepared.get(text);
      if (!statement) {
        statement = (this.sqlite as BetterSqlite3.Database).prepare(text);
        this.prepared.set(text, statement);
      }
      if (statement.reader) {
        const rows = statement.all(...parameters) as Record<string, unknown>[];
        next = steps.next({ rows, affected: rows.length });
      } else {
        next = steps.next({ rows: [], affected: statement.run(...parameters).changes });
      }
    }
    return next.value;
  }

  private runOnPostgres<T>(steps: Statements<T>): Promise<T> {
    return this.dataSource.transaction(async (tx) => {
      const runner = tx.queryRunner;
      if (!runner) throw new Error('a transaction has a query runner');
      let next = steps.next();
      while (!next.done) {
        const result = (await runner.query(this.withNumberedPlaceholders(next.value.text), next.value.parameters, true)) as QueryResult;
        const rows = (result.records ?? []) as Record<string, unknown>[];
        next = steps.next({ rows, affected: result.affected ?? rows.length });
      }
      return next.value;
    });
  }

  /** `?` as `$1, $2, ...` (the statements have no `?` inside literals). */
  private withNumberedPlaceholders(text: string): string {
    let converted = this.numbered.get(text);
    if (converted === undefined) {
      let n = 0;
      converted = text.replace(/\?/g, () => `$${++n}`);
      this.numbered.set(text, converted);
    }
    return converted;
  }
}
