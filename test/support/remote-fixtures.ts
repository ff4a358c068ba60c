import { nkeys } from 'nats';
import type { NatsUser } from './nats-server';

/** Fixtures for the remote worker tests: a plugin package for `toolgate worker`, and NATS users with the permissions of each part. */

/** `remote/nap` (idempotent), `remote/charge` (not idempotent) and `remote/erase` (destructive: waits for approval), each sleeping `ms`. */
export const REMOTE_TOOLS = `
const base = (name, extra) => ({
  name, title: 'Remote ' + name, description: 'Remote fixture ' + name + ' for worker tests; never for real work.',
  category: ['testing'], tags: ['remote'], examples: [],
  inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 }, label: { type: 'string' } }, additionalProperties: false },
  outputSchema: { type: 'object' },
  permissions: { scopes: [], risk: 'read' },
  limits: { timeoutMs: 30000, maxConcurrency: 64, retries: 2, idempotent: true },
  execution: 'server',
  ...extra,
});
const nap = (ms, signal) => new Promise((resolve) => { const t = setTimeout(resolve, ms); signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true }); });
exports.tools = [
  base('nap', { run: async (args, ctx) => { await nap(args.ms || 0, ctx.signal); return { slept: args.ms || 0, label: args.label || '' }; } }),
  base('charge', {
    permissions: { scopes: [], risk: 'write' },
    limits: { timeoutMs: 30000, maxConcurrency: 64, retries: 2, idempotent: false },
    run: async (args, ctx) => { await nap(args.ms || 0, ctx.signal); return { charged: args.label || '' }; },
  }),
  base('erase', {
    permissions: { scopes: [], risk: 'destructive' },
    limits: { timeoutMs: 30000, maxConcurrency: 64, retries: 0, idempotent: false },
    run: async (args, ctx) => { await nap(args.ms || 0, ctx.signal); return { erased: args.label || '' }; },
  }),
];
`;

const WORKER_NKEY = nkeys.createUser();
/** The seed of the `worker-nkey` user, for TOOLGATE_NATS_NKEY_SEED. */
export const WORKER_NKEY_SEED = new TextDecoder().decode(WORKER_NKEY.getSeed());

/** What each part of one deployment may do on NATS (prefix `toolgate`); the README shows the same. */
export const USERS: NatsUser[] = [
  {
    user: 'gateway',
    password: 'gateway-secret',
    publish: ['toolgate.call.>', 'toolgate.workers.discover', 'toolgate.cancel'],
    subscribe: ['toolgate.workers.announce', 'toolgate.workers.heartbeat', 'toolgate.calls.accepted', '_INBOX.>'],
  },
  {
    user: 'worker',
    password: 'worker-secret',
    publish: ['toolgate.workers.announce', 'toolgate.workers.heartbeat', 'toolgate.calls.accepted'],
    subscribe: ['toolgate.call.>', 'toolgate.workers.discover', 'toolgate.cancel'],
    allowResponses: true,
  },
  // A worker that authenticates with an nkey (its seed in TOOLGATE_NATS_NKEY_SEED), the worker's permissions.
  {
    user: 'worker-nkey',
    nkey: WORKER_NKEY.getPublicKey(),
    publish: ['toolgate.workers.announce', 'toolgate.workers.heartbeat', 'toolgate.calls.accepted'],
    subscribe: ['toolgate.call.>', 'toolgate.workers.discover', 'toolgate.cancel'],
    allowResponses: true,
  },
  // Another deployment's client on the same NATS: its own subjects only.
  { user: 'outsider', password: 'outsider-secret', publish: ['other.>'], subscribe: ['other.>', '_INBOX.>'] },
];

const PASSWORDS: Record<string, string> = Object.fromEntries(USERS.flatMap((u) => (u.password ? [[u.user, u.password]] : [])));

/** The NATS settings of a gateway or a worker of the test deployment. */
export const natsEnv = (url: string, user: 'gateway' | 'worker'): Record<string, string> => ({
  TOOLGATE_NATS_URL: url,
  TOOLGATE_NATS_USER: user,
  TOOLGATE_NATS_PASSWORD: PASSWORDS[user],
});
