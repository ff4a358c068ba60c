import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './ports';
import { type ServiceProcess, startServiceProcess } from './service-process';

/** A user of the test server, with its subject allow-lists (omitted: every subject; `[]`: none). */
export interface NatsUser {
  /** Its name in the fixtures; with `nkey` it is not sent to the server (an nkey user has no name there). */
  user: string;
  password?: string;
  /** The user's public nkey (U…): it authenticates by signing the server's nonce with its seed, no password. */
  nkey?: string;
  /** Subjects it may publish to (wildcards allowed). */
  publish?: string[];
  /** Subjects it may subscribe to; a requester needs `_INBOX.>` here to get its replies. */
  subscribe?: string[];
  /**
   * It may publish one reply to the reply subject of each request it received (`allow_responses: true`),
   * whatever `publish` says. Beware: with `publish` omitted, NATS then lets it publish nothing else.
   */
  allowResponses?: boolean;
}

export interface NatsServerHandle {
  /** What a client connects to: `nats://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for the exit) and removes its temp dir. */
  stop(): Promise<void>;
  /** Stops it, waits `downMs`, then starts it again on the same port with the same config: clients see a server restart. */
  restart(downMs?: number): Promise<void>;
  /** What every run of the server printed so far. */
  logs(): string;
}

const HINT = 'bash scripts/ensure-nats.sh installs it and prints TOOLGATE_NATS_SERVER_BIN (npm test does)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Debian's nats-server: TOOLGATE_NATS_SERVER_BIN (set by scripts/ensure-nats.sh), else on PATH or in /usr/sbin. */
export function natsServerBin(): string {
  const configured = process.env.TOOLGATE_NATS_SERVER_BIN;
  if (configured) {
    if (!executable(configured)) throw new Error(`TOOLGATE_NATS_SERVER_BIN=${configured} is not an executable nats-server: ${HINT}`);
    return configured;
  }
  const candidates = [
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'nats-server')),
    '/usr/sbin/nats-server',
  ];
  const found = candidates.find(executable);
  if (!found) throw new Error(`no nats-server on PATH nor at /usr/sbin/nats-server: ${HINT}`);
  return found;
}

function permissionsOf({ publish, subscribe, allowResponses }: NatsUser): Record<string, unknown> | undefined {
  // An empty allow list means no restriction to NATS: "none" has to be a deny of everything.
  const subjects = (list: string[]) => (list.length > 0 ? { allow: list } : { deny: ['>'] });
  const permissions = {
    ...(publish ? { publish: subjects(publish) } : {}),
    ...(subscribe ? { subscribe: subjects(subscribe) } : {}),
    ...(allowResponses ? { allow_responses: true } : {}),
  };
  return Object.keys(permissions).length > 0 ? permissions : undefined;
}

/** The server's config file: NATS reads JSON values, quoted strings stay literal (no `$variable` expansion). */
function natsConfig(port: number, httpPort: number, users: NatsUser[] | undefined): string {
  const lines = [`listen: "127.0.0.1:${port}"`, `http: "127.0.0.1:${httpPort}"`];
  if (users && users.length > 0) {
    const entries = users.map((user) => {
      const permissions = permissionsOf(user);
      const identity = user.nkey ? { nkey: user.nkey } : { user: user.user, password: user.password };
      return { ...identity, ...(permissions ? { permissions } : {}) };
    });
    lines.push(`authorization: ${JSON.stringify({ users: entries }, null, 2)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Runs the real nats-server (Debian's package, installed by scripts/ensure-nats.sh) on 127.0.0.1,
 * on `port` or a free one, with its monitoring endpoint on another free port; no JetStream. With
 * `users`, only they may connect, each within its subject allow-lists. Resolves once `/healthz`
 * answers 200. Missing, it fails the test, never skips it.
 */
export async function startNats(options: { users?: NatsUser[]; port?: number } = {}): Promise<NatsServerHandle> {
  const bin = natsServerBin();
  const port = options.port ?? (await freePort());
  const httpPort = await freePort();
  const config = natsConfig(port, httpPort, options.users);
  const work = mkdtempSync(join(tmpdir(), 'toolgate-nats-'));
  const configFile = join(work, 'nats-server.conf');
  let earlierLogs = '';
  let running: ServiceProcess | undefined;

  const launch = async () => {
    mkdirSync(work, { recursive: true });
    writeFileSync(configFile, config);
    running = await startServiceProcess('nats-server', bin, ['-c', configFile], `http://127.0.0.1:${httpPort}/healthz`, HINT);
  };
  const halt = async () => {
    if (!running) return;
    const stopping = running;
    running = undefined;
    await stopping.stop();
    earlierLogs += stopping.logs();
  };

  try {
    await launch();
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    logs: () => earlierLogs + (running?.logs() ?? ''),
    restart: async (downMs = 0) => {
      await halt();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    stop: async () => {
      await halt();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
