import { chooseDriver, driverNames } from '@toolgate/sdk';
import { z } from 'zod';
import { isIanaZone } from './arguments/zone.lexicon';
import { REPLY_FORMATS, type ReplyFormat } from './llm/endpoint.capabilities';
import { PLANNER_DRIVERS } from './planning/planner.drivers';
import { IMAGE_DESCRIBER_DRIVERS } from './understanding/image-describer.drivers';

/** The OpenAI-compatible endpoint the LLM planner and the vision describer share. */
export interface LlmEndpointOptions {
  /** Unset with a local server that needs no key. */
  apiKey?: string;
  /** Unset: api.openai.com. */
  baseURL?: string;
  model: string;
  /** Per request, in milliseconds. */
  timeoutMs: number;
  /** Retries on 429/5xx (Retry-After honoured). */
  maxRetries: number;
}

export interface PlannerModuleOptions {
  /** `deterministic`: no model (the default); `auto`: deterministic, the model when unsure (the default with a model); `llm`: the model for every task. */
  planner: (typeof PLANNER_DRIVERS)[number]['name'];
  llm: LlmEndpointOptions & {
    /** Upper bound on prompt + completion tokens per planning request. */
    maxTokens: number;
    /** Upper bound on one reply's tokens (a plan is a few hundred): keeps a rambling model from running to the context limit. */
    maxReplyTokens: number;
    /** With TOOLGATE_PLANNER=auto: a deterministic plan less confident than this goes to the model. */
    escalateBelow: number;
    /** How the plan is asked for; `auto` tries json_schema, then json_object, then a tool call, and remembers what the endpoint took. */
    replyFormat: 'auto' | ReplyFormat;
    /** Rounds in which the model is shown its own errors (malformed JSON, unknown tools, invalid arguments). */
    repairRounds: number;
  };
  /** `ocr`: local tesseract (the default); `vision`: a vision model on the endpoint; `none`: images are refused. */
  imageDescriber: (typeof IMAGE_DESCRIBER_DRIVERS)[number]['name'];
  visionModel: string;
  /** IANA zone for dates and times a task gives without one. */
  timeZone: string;
  /** Candidates handed to the planner (the top K of the retrieval funnel). */
  candidates: number;
  /** Image input limits and the local OCR; defaults apply when absent. */
  images?: ImageInputOptions;
}

export interface ImageInputOptions {
  /** Upper bound on one decoded image, in bytes. */
  maxBytes: number;
  ocr: {
    /** The tesseract executable. */
    command: string;
    /** Tesseract language codes joined by `+`. */
    languages: string;
    /** Per image; the OCR process is killed after it. */
    timeoutMs: number;
  };
}

export const plannerEnvSchema = z.object({
  TOOLGATE_PLANNER: z.enum(driverNames(PLANNER_DRIVERS)).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  TOOLGATE_LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  // Local CPU inference takes tens of seconds for a plan.
  TOOLGATE_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
  TOOLGATE_LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  TOOLGATE_LLM_MAX_TOKENS: z.coerce.number().int().min(256).max(1_000_000).default(16_000),
  TOOLGATE_LLM_MAX_REPLY_TOKENS: z.coerce.number().int().min(64).max(100_000).default(2_048),
  TOOLGATE_LLM_REPLY_FORMAT: z.enum(['auto', ...REPLY_FORMATS]).default('auto'),
  TOOLGATE_PLANNER_ESCALATE_BELOW: z.coerce.number().min(0).max(1).default(0.6),
  TOOLGATE_LLM_REPAIR_ROUNDS: z.coerce.number().int().min(0).max(5).default(1),
  TOOLGATE_IMAGE_DESCRIBER: z.enum(driverNames(IMAGE_DESCRIBER_DRIVERS)).optional(),
  TOOLGATE_VISION_MODEL: z.string().min(1).optional(),
  TOOLGATE_TIME_ZONE: z.string().refine(isIanaZone, 'must be an IANA time zone, e.g. Europe/Berlin').default('UTC'),
  TOOLGATE_PLAN_CANDIDATES: z.coerce.number().int().min(1).max(100).default(10),
  TOOLGATE_IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  TOOLGATE_TESSERACT: z.string().min(1).default('tesseract'),
  TOOLGATE_OCR_LANGUAGES: z
    .string()
    .regex(/^[A-Za-z_]+(\+[A-Za-z_]+)*$/, 'must be tesseract language codes joined by +, e.g. eng or eng+deu')
    .default('eng'),
  TOOLGATE_OCR_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
});
export type PlannerEnv = z.infer<typeof plannerEnvSchema>;

export function plannerOptionsFromEnv(env: PlannerEnv): PlannerModuleOptions {
  return {
    planner: chooseDriver(PLANNER_DRIVERS, env, env.TOOLGATE_PLANNER, 'deterministic'),
    llm: {
      apiKey: env.OPENAI_API_KEY,
      baseURL: env.OPENAI_BASE_URL,
      model: env.TOOLGATE_LLM_MODEL,
      timeoutMs: env.TOOLGATE_LLM_TIMEOUT_MS,
      maxRetries: env.TOOLGATE_LLM_MAX_RETRIES,
      maxTokens: env.TOOLGATE_LLM_MAX_TOKENS,
      maxReplyTokens: env.TOOLGATE_LLM_MAX_REPLY_TOKENS,
      replyFormat: env.TOOLGATE_LLM_REPLY_FORMAT,
      escalateBelow: env.TOOLGATE_PLANNER_ESCALATE_BELOW,
      repairRounds: env.TOOLGATE_LLM_REPAIR_ROUNDS,
    },
    imageDescriber: chooseDriver(IMAGE_DESCRIBER_DRIVERS, env, env.TOOLGATE_IMAGE_DESCRIBER, 'ocr'),
    visionModel: env.TOOLGATE_VISION_MODEL ?? env.TOOLGATE_LLM_MODEL,
    timeZone: env.TOOLGATE_TIME_ZONE,
    candidates: env.TOOLGATE_PLAN_CANDIDATES,
    images: {
      maxBytes: env.TOOLGATE_IMAGE_MAX_BYTES,
      ocr: { command: env.TOOLGATE_TESSERACT, languages: env.TOOLGATE_OCR_LANGUAGES, timeoutMs: env.TOOLGATE_OCR_TIMEOUT_MS },
    },
  };
}
