import { Query, Resolver } from '@nestjs/graphql';
import { HealthMonitor, ResilientToolInvoker } from '@toolgate/executor';
import { AccessPolicyService, CatalogService, type Principal } from '@toolgate/registry';
import { CurrentPrincipal } from '../auth/principal.guard';
import { type BreakerState, ToolHealthReport } from './tool-health.model';

@Resolver()
export class ToolHealthResolver {
  constructor(
    private readonly invoker: ResilientToolInvoker,
    private readonly monitor: HealthMonitor,
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
  ) {}

  @Query(() => [ToolHealthReport], {
    description: "Breaker state and health of every tool version the caller may discover that was called or checked; breaker failures and counts are the caller's tenant's own.",
  })
  toolHealth(@CurrentPrincipal() principal: Principal): ToolHealthReport[] {
    const reports = new Map<string, ToolHealthReport>();
    const report = (toolId: string, version: string) => {
      const key = `${toolId}@${version}`;
      const existing = reports.get(key) ?? { toolId, version, breaker: null, health: null };
      reports.set(key, existing);
      return existing;
    };
    // The tenant's own view: another tenant's failure messages never show here.
    for (const { toolId, version, state, shared, ...breaker } of this.invoker.tenantStates(principal.tenant)) {
      report(toolId, version).breaker = { state: state as BreakerState, shared: shared as BreakerState, ...breaker };
    }
    for (const { toolId, version, healthy, detail, checkedAt, failures } of this.monitor.snapshot()) report(toolId, version).health = { healthy, detail, checkedAt, failures };
    return [...reports.values()].filter((r) => this.discoverable(principal, r.toolId, r.version)).sort((a, b) => `${a.toolId}@${a.version}`.localeCompare(`${b.toolId}@${b.version}`));
  }

  private discoverable(principal: Principal, toolId: string, version: string): boolean {
    const manifest = this.catalog.manifest(toolId, version);
    return manifest !== undefined && this.access.can(principal, 'discover', toolId, manifest.permissions.risk);
  }
}
