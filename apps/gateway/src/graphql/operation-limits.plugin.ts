import type { ApolloServerPlugin } from '@apollo/server';
import { ErrorCode } from '@toolgate/sdk';
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

export interface OperationLimits {
  maxDepth: number;
  maxComplexity: number;
}

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

/**
 * Refuses, before any resolver runs, an operation nested deeper than `maxDepth` (QUERY_TOO_DEEP) or
 * estimated costlier than `maxComplexity` (QUERY_TOO_COMPLEX). Errors thrown here keep their code,
 * unlike validation-rule errors, which Apollo relabels.
 */
export function operationLimitsPlugin(limits: OperationLimits): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation, schema }) {
          const deep = operation ? tooDeepField(document, operation, limits.maxDepth) : null;
          if (deep) {
            throw new GraphQLError(`field "${deep.path}" is at depth ${deep.depth}, over the maximum of ${limits.maxDepth}`, {
              extensions: { code: ErrorCode.QUERY_TOO_DEEP, field: deep.path, maxDepth: limits.maxDepth },
            });
          }
          const complexity = getComplexity({
            schema,
            operationName: request.operationName,
            query: document,
            variables: request.variables,
            estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
          });
          if (complexity > limits.maxComplexity) {
            throw new GraphQLError(`query complexity ${complexity} is over the maximum of ${limits.maxComplexity}`, {
              extensions: { code: ErrorCode.QUERY_TOO_COMPLEX, complexity, maxComplexity: limits.maxComplexity },
            });
          }
        },
      };
    },
  };
}
