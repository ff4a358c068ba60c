import type { ErrorDetail, Risk, ToolDescriptor } from '@toolgate/sdk';
import type { IntegrityFinding } from '../integrity/integrity.types';
import type { PluginCode, PluginStatus } from '../persistence/plugin.entity';
import type { ToolVersionState } from '../persistence/tool-version.entity';

export interface ToolVersionView {
  toolId: string;
  version: string;
  packageName: string;
  state: ToolVersionState;
  stateReason: string | null;
  descriptorHash: string;
  risk: Risk;
  /** The version's code is loaded in this process (it can run), not only recorded. */
  loaded: boolean;
  descriptor: ToolDescriptor;
  /** A loaded descriptor that differs from the pinned one, awaiting an admin's approval (its hash, and it for review). */
  pendingDescriptorHash: string | null;
  pendingDescriptor: ToolDescriptor | null;
  /** What the integrity scan found in the newest loaded descriptor; a QUARANTINED version's reasons. */
  integrityFindings: IntegrityFinding[];
  /** `tenant/subject` of the admin who approved the pinned hash, and when (epoch ms); null when pinned at first registration. */
  approvedBy: string | null;
  approvedAt: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolView {
  id: string;
  namespace: string;
  name: string;
  /** The version a call without `@version` gets: the highest loaded ACTIVE version. */
  active: ToolVersionView | null;
  /** Newest first. */
  versions: ToolVersionView[];
}

export interface PluginView {
  packageName: string;
  version: string;
  namespace: string;
  path: string;
  status: PluginStatus;
  error: { code: string; message: string; details: ErrorDetail[] } | null;
  /** The code tree this version loaded and its hash (what its workers must find), or null. */
  code: PluginCode | null;
  toolCount: number;
  updatedAt: Date;
}

/** Whom a version state change applies to: the admin's own tenant, or every tenant (a platform admin). */
export type VersionStateScope = 'tenant' | 'platform';

export interface CatalogFilter {
  namespace?: string;
  category?: string;
  /** Also list tools that have no ACTIVE version (admins only). */
  includeInactive?: boolean;
}

export interface PluginLoadReport {
  loaded: PluginView[];
  failed: PluginView[];
  durationMs: number;
}
