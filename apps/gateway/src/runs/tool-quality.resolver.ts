import { Args, Query, Resolver } from '@nestjs/graphql';
import type { Principal } from '@toolgate/registry';
import { CurrentPrincipal } from '../auth/principal.guard';
import { toolQualityCost } from '../graphql/operation.costs';
import { ToolQualityUseCase } from '../use-cases/tool-quality.use-case';
import { ToolQualityInput } from './tool-quality.inputs';
import { ToolQualityReport } from './tool-quality.model';

@Resolver()
export class ToolQualityResolver {
  constructor(private readonly toolQualityUseCase: ToolQualityUseCase) {}

  @Query(() => ToolQualityReport, {
    complexity: toolQualityCost,
    description: "Where tool calls break: failure rate, retries and p95 latency over time per tool version the caller may discover, weakest first, from the tenant's 500 newest runs in the window.",
  })
  toolQuality(@CurrentPrincipal() principal: Principal, @Args('input', { nullable: true }) input?: ToolQualityInput): Promise<ToolQualityReport> {
    return this.toolQualityUseCase.execute(principal, { sinceHours: input?.sinceHours, bucketMinutes: input?.bucketMinutes });
  }
}
