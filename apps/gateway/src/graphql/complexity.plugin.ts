import type { ApolloServerPlugin } from '@apollo/server';
import { ErrorCode } from '@toolgate/sdk';
import { GraphQLError } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/** Refuses an operation whose estimated cost exceeds `maxComplexity` before any resolver runs. */
export function complexityLimitPlugin(maxComplexity: number): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const complexity = getComplexity({
            schema,
            operationName: request.operationName,
            query: document,
            variables: request.variables,
            estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
          });
          if (complexity > maxComplexity) {
            throw new GraphQLError(`query complexity ${complexity} is over the maximum of ${maxComplexity}`, {
              extensions: { code: ErrorCode.QUERY_TOO_COMPLEX, complexity, maxComplexity },
            });
          }
        },
      };
    },
  };
}
