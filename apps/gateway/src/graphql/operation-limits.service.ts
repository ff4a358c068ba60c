import { Inject, Injectable } from '@nestjs/common';
import { AccessPolicyService } from '@toolgate/registry';
import { ErrorCode } from '@toolgate/sdk';
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, type GraphQLSchema, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { bearerToken } from '../auth/principal.guard';
import { APP_CONFIG, type AppConfig } from '../config/app.config';
import type { CostContext } from './operation.costs';
import { PrincipalRateLimiter } from './principal-rate.limiter';

/** Runs a listing returns without `limit` (RunFilterInput's documented default). */
const DEFAULT_RUN_LIMIT = 50;

/**
 * The first field path deeper than `maxDepth`, following fragments; null when within the limit.
 * Written here because the usual package is unmaintained and reports neither a code nor the field.
 */
export function tooDeepField(document: DocumentNode, operation: OperationDefinitionNode, maxDepth: number): { path: string; depth: number } | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walk = (selectionSet: SelectionSetNode | undefined, depth: number, path: string[], seen: ReadonlySet<string>): { path: string; depth: number } | null => {
    for (const selection of selectionSet?.selections ?? []) {
      let found: { path: string; depth: number } | null = null;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const here = [...path, selection.alias?.value ?? selection.name.value];
        if (depth + 1 > maxDepth) return { path: here.join('.'), depth: depth + 1 };
        found = walk(selection.selectionSet, depth + 1, here, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        found = walk(selection.selectionSet, depth, path, seen);
      } else if (!seen.has(selection.name.value)) {
        found = walk(fragments.get(selection.name.value)?.selectionSet, depth, path, new Set([...seen, selection.name.value]));
      }
      if (found) return found;
    }
    return null;
  };
  return walk(operation.selectionSet, 0, [], new Set());
}

/** One operation as either transport received it, parsed and validated. */
export interface AdmissionRequest {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string | null;
  variables?: Readonly<Record<string, unknown>> | null;
  /** The credential as sent: the Authorization header, or `connectionParams.authorization` over graphql-ws. */
  authorization?: string;
  /** The peer's address, which anonymous and keyless callers are charged by. */
  clientIp: string;
}

/**
 * The limits every operation passes before any resolver runs, over HTTP and WebSocket alike (both
 * transports call `admit`, so they cannot drift): depth (QUERY_TOO_DEEP), cost (QUERY_TOO_COMPLEX,
 * priced by the `complexity` beside each field, see operation.costs.ts) and the caller's rate budget
 * (RATE_LIMITED with `retryAfterSeconds`), charged the operation's cost.
 */
@Injectable()
export class OperationLimits {
  readonly maxDepth: number;
  readonly maxComplexity: number;
  /** The server's settings every price is computed with (GraphQL estimators and MCP requests alike). */
  readonly costContext: CostContext;
  private readonly limiter: PrincipalRateLimiter;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly access: AccessPolicyService,
  ) {
    this.maxDepth = config.gateway.GRAPHQL_MAX_DEPTH;
    this.maxComplexity = config.gateway.GRAPHQL_MAX_COMPLEXITY;
    this.costContext = {
      defaultK: config.retrieval.defaultK,
      maxK: config.retrieval.maxK,
      maxSteps: config.executor.maxSteps,
      maxReplans: config.executor.maxReplans,
      defaultRunLimit: DEFAULT_RUN_LIMIT,
    };
    this.limiter = new PrincipalRateLimiter({ perMinute: config.gateway.TOOLGATE_RATE_LIMIT_PER_MINUTE, burst: config.gateway.TOOLGATE_RATE_LIMIT_BURST });
  }

  /** Throws the first limit the operation crosses, as a GraphQLError with its code; returns the cost charged. */
  async admit(request: AdmissionRequest): Promise<number> {
    const deep = tooDeepField(request.document, request.operation, this.maxDepth);
    if (deep) {
      throw new GraphQLError(`field "${deep.path}" is at depth ${deep.depth}, over the maximum of ${this.maxDepth}`, {
        extensions: { code: ErrorCode.QUERY_TOO_DEEP, field: deep.path, maxDepth: this.maxDepth },
      });
    }
    const cost = this.cost(request);
    if (cost > this.maxComplexity) {
      throw new GraphQLError(`query complexity ${cost} is over the maximum of ${this.maxComplexity}`, {
        extensions: { code: ErrorCode.QUERY_TOO_COMPLEX, complexity: cost, maxComplexity: this.maxComplexity },
      });
    }
    const refused = await this.charge(request.authorization, request.clientIp, cost);
    if (refused) {
      throw new GraphQLError(`rate limit reached: retry in ${refused.retryAfterSeconds} s`, {
        extensions: { code: ErrorCode.RATE_LIMITED, retryAfterSeconds: refused.retryAfterSeconds, complexity: cost },
      });
    }
    return cost;
  }

  /** Charges `cost` to the caller's one budget (every transport spends from it); null when within it, else when to retry. */
  charge(authorization: string | undefined, clientIp: string, cost: number): Promise<{ retryAfterSeconds: number } | null> {
    return this.limiter.charge(this.principalKey(authorization, clientIp), cost);
  }

  /**
   * Who a request is charged to and counted as: the API key's tenant and subject; the peer address
   * for keyless local mode and for a credential that does not authenticate (the guard refuses that
   * request; its attempts still cost).
   */
  principalKey(authorization: string | undefined, clientIp: string): string {
    if (!this.access.localMode) {
      try {
        const principal = this.access.authenticate(bearerToken(authorization));
        return `key:${principal.tenant}\u0000${principal.subject}`;
      } catch {
        // Falls through to the address.
      }
    }
    return `ip:${clientIp}`;
  }

  private cost({ schema, document, operationName, variables }: AdmissionRequest): number {
    try {
      return getComplexity({
        schema,
        query: document,
        operationName: operationName ?? undefined,
        variables: variables ?? undefined,
        context: this.costContext,
        estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
      });
    } catch (error) {
      // e.g. more nodes than graphql-query-complexity evaluates: too complex to price is too complex.
      throw new GraphQLError(`query complexity could not be estimated: ${(error as Error).message}`, {
        extensions: { code: ErrorCode.QUERY_TOO_COMPLEX, maxComplexity: this.maxComplexity },
      });
    }
  }
}
