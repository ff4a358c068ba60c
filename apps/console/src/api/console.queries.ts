/** The GraphQL documents the console sends, and the shapes it reads back: public API only. */

export interface Me {
  tenant: string;
  subject: string;
  roles: string[];
  admin: boolean;
}
export const ME = 'query Me { me { tenant subject roles admin } }';

export interface IntegrityFinding {
  path: string;
  rule: string;
  message: string;
}
export interface ToolVersion {
  version: string;
  state: 'ACTIVE' | 'CANARY' | 'DISABLED' | 'QUARANTINED';
  stateReason: string | null;
  descriptorHash: string;
  pendingDescriptorHash: string | null;
  integrityFindings: IntegrityFinding[];
  loaded: boolean;
  packageName: string;
  approvedBy: string | null;
}
export interface CatalogTool {
  id: string;
  title: string;
  description: string;
  risk: 'read' | 'write' | 'destructive';
  requiresApproval: boolean;
  execution: string;
  activeVersion: string | null;
  versions: ToolVersion[];
}
export interface ToolHealthReport {
  toolId: string;
  version: string;
  breaker: {
    state: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
    shared: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
    consecutiveFailures: number;
    failures: number;
    inFlight: number;
    tenantLimit: number;
    lastFailure: { code: string; message: string; at: string } | null;
  } | null;
  health: { healthy: boolean; detail: string | null; checkedAt: string; failures: number } | null;
}
export const CATALOG = `query Catalog($filter: ToolFilterInput) {
  tools(filter: $filter) {
    id title description risk requiresApproval execution activeVersion
    versions { version state stateReason descriptorHash pendingDescriptorHash integrityFindings { path rule message } loaded packageName approvedBy }
  }
  toolHealth {
    toolId version
    breaker { state shared consecutiveFailures failures inFlight tenantLimit lastFailure { code message at } }
    health { healthy detail checkedAt failures }
  }
}`;
export const APPROVE_VERSION = `mutation ApproveVersion($input: ApproveToolVersionInput!) { approveToolVersion(input: $input) { id } }`;

export interface FunnelCandidate {
  toolId: string;
  version: string;
  title: string;
  kept: boolean;
  verdict: string;
  reason: string;
  rank: number;
  bm25Rank: number | null;
  bm25Score: number | null;
  vectorRank: number | null;
  vectorScore: number | null;
  fusedScore: number;
  rerankRank: number | null;
  rerankScore: number | null;
  matchedTerms: string[];
  clause: string | null;
}
export interface SearchFunnel {
  query: string;
  k: number;
  degraded: string | null;
  images: { index: number; name: string | null; source: string; text: string }[];
  candidates: FunnelCandidate[];
}
export const SEARCH_FUNNEL = `query SearchFunnel($input: SearchToolsInput!) {
  searchFunnel(input: $input) {
    query k degraded
    images { index name source text }
    candidates { toolId version title kept verdict reason rank bm25Rank bm25Score vectorRank vectorScore fusedScore rerankRank rerankScore matchedTerms clause }
  }
}`;

export type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'PENDING_APPROVAL' | 'CANCELLED';
export type StepStatus = 'WAITING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'FALLBACK' | 'SKIPPED' | 'PENDING_APPROVAL' | 'CANCELLED';
export interface RunStep {
  id: string;
  tool: string;
  status: StepStatus;
  attempts: number;
  output?: unknown;
  outputWithheld?: boolean;
  error: { code: string; message: string; path: string | null } | null;
  reason?: string | null;
  fallbackOf?: string | null;
  dependsOn: string[];
  startedAt: string | null;
  durationMs: number;
}
export interface Run {
  id: string;
  status: RunStatus;
  task: string | null;
  traceId: string;
  traceUrl?: string | null;
  reason: string | null;
  replans?: number;
  owner: { tenant: string; subject: string };
  startedAt: string;
  finishedAt: string | null;
  steps: RunStep[];
}
/** A run as listed: its steps without outputs, errors or timings. */
export type RunSummary = Pick<Run, 'id' | 'status' | 'task' | 'owner' | 'startedAt' | 'finishedAt'> & { steps: Pick<RunStep, 'id' | 'tool' | 'status'>[] };
export const RUNS = `query Runs($filter: RunFilterInput) {
  runs(filter: $filter) { id status task owner { tenant subject } startedAt finishedAt steps { id tool status } }
}`;
const RUN_FIELDS = `id status task traceId traceUrl reason replans owner { tenant subject } startedAt finishedAt
  steps { id tool status attempts output outputWithheld error { code message path } reason fallbackOf dependsOn startedAt durationMs }`;
export const RUN = `query Run($id: ID!) { run(id: $id) { ${RUN_FIELDS} } }`;
export const APPROVE_STEP = `mutation ApproveStep($runId: ID!, $stepId: String!, $comment: String) { approveStep(runId: $runId, stepId: $stepId, comment: $comment) { id status } }`;
export const REJECT_STEP = `mutation RejectStep($runId: ID!, $stepId: String!, $comment: String) { rejectStep(runId: $runId, stepId: $stepId, comment: $comment) { id status } }`;
export const CANCEL_RUN = `mutation CancelRun($runId: ID!) { cancelRun(runId: $runId) { id status } }`;

export interface RunEvent {
  seq: number;
  type: string;
  at: string;
  stepId: string | null;
  tool: string | null;
  status: string | null;
}
export const RUN_EVENTS = 'subscription RunEvents($runId: ID!) { runEvents(runId: $runId) { seq type at stepId tool status } }';

export interface ToolQuality {
  tool: string;
  toolId: string;
  version: string;
  calls: number;
  failures: number;
  failureRate: number;
  retries: number;
  p95Ms: number | null;
  series: { start: string; calls: number; failures: number; retries: number; p95Ms: number | null }[];
  failingQueries: { runId: string; task: string | null; code: string; at: string }[];
}
export interface ToolQualityReport {
  since: string;
  until: string;
  bucketMinutes: number;
  runsConsidered: number;
  truncated: boolean;
  tools: ToolQuality[];
}
export const TOOL_QUALITY = `query ToolQuality($input: ToolQualityInput) {
  toolQuality(input: $input) {
    since until bucketMinutes runsConsidered truncated
    tools { tool toolId version calls failures failureRate retries p95Ms series { start calls failures retries p95Ms } failingQueries { runId task code at } }
  }
}`;
