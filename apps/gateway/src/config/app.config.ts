import { type ExecutorModuleOptions, executorEnvSchema, executorModuleOptionsFromEnv } from '@toolgate/executor';
import { type PlannerModuleOptions, plannerEnvSchema, plannerOptionsFromEnv } from '@toolgate/planner';
import { type RegistryModuleOptions, registryEnvSchema, registryOptionsFromEnv } from '@toolgate/registry';
import { type RetrievalModuleOptions, retrievalEnvSchema, retrievalOptionsFromEnv } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { type GatewayEnv, gatewayEnvSchema, validateEnv } from './gateway.config';

export interface AppConfig {
  gateway: GatewayEnv;
  registry: RegistryModuleOptions;
  retrieval: RetrievalModuleOptions;
  planner: PlannerModuleOptions;
  /** Run limits, per-tool resilience, plugin isolation and health checks. */
  executor: ExecutorModuleOptions;
}

/** Validates the whole environment once, with one schema per lib; every bad variable is named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  validateEnv([gatewayEnvSchema, registryEnvSchema, retrievalEnvSchema, plannerEnvSchema, executorEnvSchema], env);
  const config = {
    gateway: gatewayEnvSchema.parse(env),
    registry: registryOptionsFromEnv(registryEnvSchema.parse(env), cwd),
    retrieval: retrievalOptionsFromEnv(retrievalEnvSchema.parse(env)),
    planner: plannerOptionsFromEnv(plannerEnvSchema.parse(env)),
    executor: executorModuleOptionsFromEnv(executorEnvSchema.parse(env)),
  };
  const conflicts = limitConflicts(config);
  if (conflicts.length > 0) {
    throw new ToolgateError(ErrorCode.INVALID_CONFIG, 'invalid configuration', conflicts);
  }
  return config;
}

/** Limits that are each valid but contradict one another: the server would refuse what it documents. */
function limitConflicts({ gateway, planner }: AppConfig): { path: string; message: string }[] {
  const conflicts: { path: string; message: string }[] = [];
  const imageBytes = planner.images?.maxBytes;
  // One image at its limit, base64-encoded, plus room for the rest of the request.
  if (imageBytes !== undefined && Math.ceil(imageBytes / 3) * 4 + 64 * 1024 > gateway.TOOLGATE_MAX_BODY_BYTES) {
    conflicts.push({ path: 'TOOLGATE_MAX_BODY_BYTES', message: `must hold one image of TOOLGATE_IMAGE_MAX_BYTES (${imageBytes}) in base64, at least ${Math.ceil(imageBytes / 3) * 4 + 64 * 1024}` });
  }
  if (gateway.TOOLGATE_RATE_LIMIT_PER_MINUTE > 0 && gateway.TOOLGATE_RATE_LIMIT_BURST < gateway.GRAPHQL_MAX_COMPLEXITY) {
    conflicts.push({ path: 'TOOLGATE_RATE_LIMIT_BURST', message: `must be at least GRAPHQL_MAX_COMPLEXITY (${gateway.GRAPHQL_MAX_COMPLEXITY}), or an admissible operation could never pass` });
  }
  return conflicts;
}

/** Config safe to print: credentials in URLs, API keys and passwords are replaced. */
export function maskConfig(config: AppConfig): unknown {
  const mask = (value: unknown, key = ''): unknown => {
    if (/(apiKey|password|seed)$/i.test(key) && typeof value === 'string') return '****';
    if (typeof value === 'string') return value.replace(/(\/\/[^:/@]+:)[^@]+@/, '$1****@');
    if (Array.isArray(value)) return value.map((item) => mask(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k)]));
    return value;
  };
  return mask(config);
}

export const APP_CONFIG = Symbol('APP_CONFIG');
