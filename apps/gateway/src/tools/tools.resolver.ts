import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { AccessPolicyService, CatalogService, McpConnections, type Principal } from '@toolgate/registry';
import { CurrentPrincipal } from '../auth/principal.guard';
import { searchFunnelCost, searchToolsCost } from '../graphql/operation.costs';
import { SearchFunnelUseCase } from '../use-cases/search-funnel.use-case';
import { SearchToolsUseCase } from '../use-cases/search-tools.use-case';
import { McpServer } from './mcp-server.model';
import { ApproveToolVersionInput, SearchToolsInput, SetToolVersionStateInput, ToolFilterInput } from './tool.inputs';
import { MatchExplanation, Plugin, PluginLoadReport, SearchFunnel, Tool, ToolMatch } from './tool.model';

@Resolver(() => Tool)
export class ToolsResolver {
  constructor(
    private readonly catalog: CatalogService,
    private readonly access: AccessPolicyService,
    private readonly searchTools: SearchToolsUseCase,
    private readonly searchFunnelUseCase: SearchFunnelUseCase,
    private readonly mcp: McpConnections,
  ) {}

  @Query(() => [Tool], { description: 'Tools the caller may discover.' })
  tools(@CurrentPrincipal() principal: Principal, @Args('filter', { nullable: true }) filter?: ToolFilterInput): Tool[] {
    return this.catalog.listTools(principal, filter ?? {}).map(Tool.from);
  }

  @Query(() => Tool, { description: 'One tool by `namespace/name[@version]` or a bare name that only one namespace uses.' })
  tool(@CurrentPrincipal() principal: Principal, @Args('id') id: string): Tool {
    return Tool.from(this.catalog.resolve(id, principal).tool);
  }

  @Query(() => [ToolMatch], { name: 'searchTools', complexity: searchToolsCost, description: 'The tools that best fit a task, best first, among those the caller may discover.' })
  async search(@CurrentPrincipal() principal: Principal, @Args('input') input: SearchToolsInput): Promise<ToolMatch[]> {
    const results = await this.searchTools.execute(input, principal);
    return results.map(({ tool, hit, images }) => ({ tool: Tool.from(tool), score: hit.score, explanation: MatchExplanation.from(hit, images) }));
  }

  @Query(() => SearchFunnel, {
    complexity: searchFunnelCost,
    description: "searchTools as the funnel saw it: the kept tools and the candidates just past the cut, each stage's rank and score, and why each was kept or dropped.",
  })
  async searchFunnel(@CurrentPrincipal() principal: Principal, @Args('input') input: SearchToolsInput): Promise<SearchFunnel> {
    return SearchFunnel.from(await this.searchFunnelUseCase.execute(input, principal));
  }

  @Query(() => [Plugin], { description: 'Plugin packages and their load status (admins).' })
  plugins(@CurrentPrincipal() principal: Principal): Plugin[] {
    this.access.assertAdmin(principal, 'listing plugins');
    return this.catalog.listPlugins().map(Plugin.from);
  }

  @Query(() => [McpServer], { description: 'The configured MCP servers: state, protocol version, tool count and last error (admins).' })
  mcpServers(@CurrentPrincipal() principal: Principal): McpServer[] {
    this.access.assertAdmin(principal, 'listing MCP servers');
    return this.mcp.statuses().map(McpServer.from);
  }

  @Mutation(() => PluginLoadReport, { description: 'Discover and load plugin packages again; new versions register beside old ones (platform admins: it affects every tenant).' })
  async reloadPlugins(@CurrentPrincipal() principal: Principal): Promise<PluginLoadReport> {
    this.access.assertPlatformAdmin(principal, 'reloading plugins');
    const report = await this.catalog.loadPlugins();
    return { ...report, loaded: report.loaded.map(Plugin.from), failed: report.failed.map(Plugin.from) };
  }

  @Mutation(() => Tool, {
    description:
      "Set one version ACTIVE, CANARY or DISABLED for the admin's own tenant (scope TENANT, the default), or for every tenant (scope PLATFORM, platform admins); a version awaiting approval needs approveToolVersion.",
  })
  async setToolVersionState(@CurrentPrincipal() principal: Principal, @Args('input') input: SetToolVersionStateInput): Promise<Tool> {
    return Tool.from(await this.catalog.setVersionState(principal, input.toolId, input.version, input.state, input.scope));
  }

  @Mutation(() => Tool, {
    description: 'Approve exactly this descriptor hash of a version (a changed or quarantined descriptor): pins it and makes the version ACTIVE for every tenant (platform admins).',
  })
  async approveToolVersion(@CurrentPrincipal() principal: Principal, @Args('input') input: ApproveToolVersionInput): Promise<Tool> {
    return Tool.from(await this.catalog.approveVersion(principal, input.toolId, input.version, input.descriptorHash));
  }
}
