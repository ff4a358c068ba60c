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
  /** May reload plugins and policies and change tool version states. */
  admin: boolean;
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
