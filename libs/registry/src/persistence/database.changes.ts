import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Client } from 'pg';
import { Subject } from 'rxjs';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../registry.module-definition';

/** PostgreSQL notification channels the replicas of one deployment share. */
export const CHANGE_CHANNELS = { runEvents: 'toolgate_run_events', catalog: 'toolgate_catalog' } as const;

const RECONNECT_MS = 1_000;

export interface RunEventNotice {
  runId: string;
  seq: number;
}

/**
 * What other gateway replicas changed in the shared PostgreSQL, from its LISTEN/NOTIFY: a run event
 * appended (the notice is sent in the event's own transaction, so it arrives only once the event is
 * committed and readable), or catalog version states set. Notices carry ids, never data: a replica
 * reads what changed from the database. A notice lost while the listening connection was down is
 * made up for by `reconnected$`, after which watchers read again. SQLite is one process: nothing to hear.
 */
@Injectable()
export class DatabaseChanges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DatabaseChanges');
  /** This process among the replicas: its own notices are not heard back. */
  readonly origin = randomUUID();
  private readonly runEvents = new Subject<RunEventNotice>();
  private readonly catalog = new Subject<void>();
  private readonly reconnected = new Subject<void>();
  readonly runEvents$ = this.runEvents.asObservable();
  readonly catalog$ = this.catalog.asObservable();
  readonly reconnected$ = this.reconnected.asObservable();
  private readonly url: string | null;
  private client: Client | null = null;
  private retry?: NodeJS.Timeout;
  private closed = false;

  constructor(@Inject(REGISTRY_OPTIONS) options: RegistryModuleOptions) {
    this.url = options.database.type === 'postgres' ? options.database.url : null;
  }

  /** Whether other processes can share the database (PostgreSQL), so notices are sent at all. */
  get shared(): boolean {
    return this.url !== null;
  }

  /** The payload of a run event's notice, sent with the event's transaction. */
  runEventPayload(runId: string, seq: number): string {
    return `${this.origin} ${seq} ${runId}`;
  }

  catalogPayload(): string {
    return this.origin;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.url) await this.listen(false);
  }

  private async listen(again: boolean): Promise<void> {
    if (this.closed || !this.url) return;
    // Required here: only a PostgreSQL catalog listens, and a SQLite one never loads the driver.
    const { Client } = await import('pg');
    const client = new Client({ connectionString: this.url, application_name: 'toolgate-changes' });
    client.on('notification', (message) => this.onNotice(message.channel, message.payload ?? ''));
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'the database connection for replica notices failed: reconnecting');
      this.reconnectLater(client);
    });
    client.on('end', () => this.reconnectLater(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNELS.runEvents}`);
      await client.query(`LISTEN ${CHANGE_CHANNELS.catalog}`);
      this.client = client;
      if (again) {
        this.logger.log('listening for replica notices again');
        this.reconnected.next();
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot listen for replica notices yet: retrying');
      this.reconnectLater(client);
    }
  }

  private reconnectLater(client: Client): void {
    if (this.closed || this.retry) return;
    if (this.client === client) this.client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.listen(true);
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private onNotice(channel: string, payload: string): void {
    if (channel === CHANGE_CHANNELS.runEvents) {
      const [origin, seq, ...rest] = payload.split(' ');
      const runId = rest.join(' ');
      if (origin === this.origin || !runId || !/^\d+$/.test(seq)) return;
      this.runEvents.next({ runId, seq: Number(seq) });
    } else if (channel === CHANGE_CHANNELS.catalog && payload !== this.origin) {
      this.catalog.next();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    client?.removeAllListeners('end');
    await client?.end().catch(() => undefined);
    this.runEvents.complete();
    this.catalog.complete();
    this.reconnected.complete();
  }
}
