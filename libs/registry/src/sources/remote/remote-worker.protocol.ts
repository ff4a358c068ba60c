import { createHash } from 'node:crypto';
import { ErrorCode } from '@toolgate/sdk';
import { z } from 'zod';

/**
 * What gateways and tool workers say to each other over NATS. Every message is parsed with these
 * schemas on arrival: a peer is another process, and a message that does not fit is refused with a
 * typed error, never half-read.
 *
 * Subjects, under a deployment prefix (`toolgate` unless configured):
 * - `<prefix>.workers.announce`   worker → gateways: who it is and every tool it hosts
 * - `<prefix>.workers.heartbeat`  worker → gateways: still alive, load, catalog digest
 * - `<prefix>.workers.discover`   gateway → workers: announce yourselves now
 * - `<prefix>.call.<route>`       gateway → one worker of the queue group: run a call of the tool version `callRoute` names
 * - `<prefix>.calls.accepted`     worker → gateways: which worker took a call (so its death fails the call at once)
 * - `<prefix>.cancel`             gateway → workers: stop a call
 * Calls are addressed by tool version and descriptor hash together, so a worker whose descriptor
 * drifted from the pinned one listens on another subject and is never called with the pinned version's
 * calls, and two packages shipping identical descriptors never share a subject.
 */
export const DEFAULT_SUBJECT_PREFIX = 'toolgate';
export const WORKER_QUEUE = 'workers';

/** The route of one tool version's calls: sha256 over its id, version and descriptor hash (a subject token: no dots, no wildcards). */
export const callRoute = (toolId: string, version: string, hash: string): string => createHash('sha256').update(`${toolId}@${version}\n${hash}`).digest('hex');

export const subjectsOf = (prefix: string) => ({
  announce: `${prefix}.workers.announce`,
  heartbeat: `${prefix}.workers.heartbeat`,
  discover: `${prefix}.workers.discover`,
  call: (route: string) => `${prefix}.call.${route}`,
  accepted: `${prefix}.calls.accepted`,
  cancel: `${prefix}.cancel`,
  queue: `${prefix}.${WORKER_QUEUE}`,
});
export type Subjects = ReturnType<typeof subjectsOf>;

const HASH = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 hex digest');
const WORKER_ID = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.:@-]+$/, 'letters, digits and . _ : @ - only');

const heartbeatFields = {
  workerId: WORKER_ID,
  /** catalogDigest over the call routes it serves: a gateway that does not know it asks for an announcement. */
  digest: HASH,
  /** Calls the worker runs at once; beyond it a call gets OVERLOADED. */
  capacity: z.number().int().min(1).max(100_000),
  inFlight: z.number().int().min(0),
  /** Calls that ended in a failure of the worker's own (not of the tool) since it started. */
  failures: z.number().int().min(0),
  /** How often heartbeats come; a gateway counts the worker gone after a few missed. */
  intervalMs: z.number().int().min(50).max(600_000),
};

export const heartbeatSchema = z.object(heartbeatFields).strict();
export type WorkerHeartbeat = z.infer<typeof heartbeatSchema>;

/** The descriptor data of one tool (sdk ToolDescriptor); its full check is the sdk manifest validator's, on the gateway. */
const announcedToolSchema = z.object({ descriptor: z.record(z.string(), z.unknown()), hash: HASH }).strict();

export const announcementSchema = z
  .object({
    ...heartbeatFields,
    packages: z
      .array(
        z
          .object({
            name: z.string().min(1).max(214),
            version: z.string().min(1).max(256),
            tools: z.array(announcedToolSchema).max(1_000),
          })
          .strict(),
      )
      .max(1_000),
  })
  .strict();
export type WorkerAnnouncement = z.infer<typeof announcementSchema>;

export const callSchema = z
  .object({
    callId: z.string().min(1).max(200),
    toolId: z.string().min(1).max(400),
    version: z.string().min(1).max(256),
    hash: HASH,
    arguments: z.record(z.string(), z.unknown()),
    principal: z.object({ tenant: z.string().min(1).max(200), subject: z.string().min(1).max(400) }).strict(),
    idempotencyKey: z.string().min(1).max(400),
    runId: z.string().max(200),
    stepId: z.string().max(200),
    attempt: z.number().int().min(1),
    /** Epoch ms after which the answer is of no use: the worker aborts the tool then. */
    deadlineAt: z.number().int().positive(),
    /** W3C trace context of the gateway's step span. */
    traceparent: z.string().max(200).optional(),
  })
  .strict();
export type RemoteCall = z.infer<typeof callSchema>;

const errorCodes = z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]);

export const replySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), workerId: WORKER_ID, output: z.unknown() }).strict(),
  z
    .object({
      ok: z.literal(false),
      workerId: WORKER_ID,
      error: z.object({ code: errorCodes, message: z.string().max(4_000), transient: z.boolean().optional(), notStarted: z.boolean().optional() }).strict(),
    })
    .strict(),
]);
export type RemoteReply = z.infer<typeof replySchema>;

export const acceptedSchema = z.object({ callId: z.string().min(1).max(200), workerId: WORKER_ID }).strict();
export const cancelSchema = z.object({ callId: z.string().min(1).max(200) }).strict();

/** First issue of a failed parse, for error messages that name what was wrong. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.length ? `/${issue.path.join('/')}` : '(root)'}: ${issue.message}` : 'invalid';
}
