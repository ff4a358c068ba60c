import { Mutation, Query, Resolver } from '@nestjs/graphql';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import { PolicySummary, PrincipalInfo } from '../tools/tool.model';
import { CurrentPrincipal } from './principal.guard';

@Resolver()
export class PrincipalResolver {
  constructor(private readonly access: AccessPolicyService) {}

  @Query(() => PrincipalInfo, { description: 'Who the API key acts as.' })
  me(@CurrentPrincipal() principal: Principal): PrincipalInfo {
    return { ...principal, admin: this.access.isAdmin(principal) };
  }

  @Mutation(() => PolicySummary, { description: 'Re-read the policy file; on any error the policies in force stay unchanged (platform admins: it affects every tenant).' })
  async reloadPolicies(@CurrentPrincipal() principal: Principal): Promise<PolicySummary> {
    this.access.assertPlatformAdmin(principal, 'reloading policies');
    const set = await this.access.reload();
    return { source: set.source, roles: set.roles.map((r) => r.name), apiKeys: set.apiKeys.length };
  }
}
