import type { Risk } from '@toolgate/sdk';

export type Action = 'discover' | 'execute';
export const ACTIONS: readonly Action[] = ['discover', 'execute'];

/** A role grants `actions` on every tool whose id matches the `tools` glob and whose risk is at most `maxRisk`. */
export interface Grant {
  tools: string;
  actions: Action[];
  maxRisk: Risk;
}

export interface RoleDefinition {
  name: string;
  description: string | null;
  /** Tenant admin: may change tool version states for its own tenant, list plugins, and act on its tenant's runs. */
  admin: boolean;
  /** Platform admin (implies admin): may make changes that affect every tenant (reloadPlugins, reloadPolicies, approveToolVersion, platform-wide version states). */
  platformAdmin: boolean;
  grants: Grant[];
}

export interface Principal {
  tenant: string;
  subject: string;
  roles: string[];
}

export interface ApiKeyDefinition {
  keySha256: string;
  /** A non-secret hint (first characters of the key) for operators and logs. */
  label: string;
  tenant: string;
  subject: string;
  roles: string[];
}

export interface PolicySet {
  roles: RoleDefinition[];
  apiKeys: ApiKeyDefinition[];
  /** The file the set came from, null when none is configured. */
  source: string | null;
}

/** What a principal may discover, as data a search engine can apply as a filter. */
export interface DiscoveryClause {
  idGlob: string;
  maxRisk: Risk;
}
