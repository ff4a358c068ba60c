import { type RegistryModuleOptions, registryEnvSchema, registryOptionsFromEnv } from '@toolgate/registry';
import { type GatewayEnv, gatewayEnvSchema, validateEnv } from './gateway.config';

/** What the catalog commands (`tools list`, `tools show`, `plugins list`) read: the gateway's and the registry's settings. */
export interface CatalogConfig {
  gateway: GatewayEnv;
  registry: RegistryModuleOptions;
}

/**
 * Validates the gateway's and the registry's variables as loadConfig does, and only those: a command
 * that reads the catalog neither loads nor judges the retrieval, planner and executor settings.
 */
export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CatalogConfig {
  validateEnv([gatewayEnvSchema, registryEnvSchema], env);
  return { gateway: gatewayEnvSchema.parse(env), registry: registryOptionsFromEnv(registryEnvSchema.parse(env), cwd) };
}
