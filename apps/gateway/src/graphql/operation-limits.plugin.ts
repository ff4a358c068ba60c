import { type ApolloServerPlugin, type GraphQLRequestListener, HeaderMap } from '@apollo/server';
import { Plugin } from '@nestjs/apollo';
import { ErrorCode } from '@toolgate/sdk';
import type { Request } from 'express';
import { GraphQLError } from 'graphql';
import { OperationLimits } from './operation-limits.service';

/** HTTP status of each refusal: the client's operation (400) or its budget (429, with Retry-After). */
const STATUS: Partial<Record<string, number>> = { [ErrorCode.QUERY_TOO_DEEP]: 400, [ErrorCode.QUERY_TOO_COMPLEX]: 400, [ErrorCode.RATE_LIMITED]: 429 };

/** The refusal with Apollo's `extensions.http` (status and headers; Apollo strips it from the body). */
function overHttp(error: GraphQLError): GraphQLError {
  const { code, retryAfterSeconds } = error.extensions as { code?: string; retryAfterSeconds?: number };
  const status = code ? STATUS[code] : undefined;
  if (status === undefined) return error;
  const headers = new HeaderMap(retryAfterSeconds === undefined ? [] : [['retry-after', String(retryAfterSeconds)]]);
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status, headers } } });
}

/**
 * GraphQL over HTTP: every operation passes OperationLimits once it is parsed and validated, before
 * any resolver runs. Errors thrown here keep their code, unlike validation-rule errors, which Apollo
 * relabels.
 */
@Plugin()
export class OperationLimitsPlugin implements ApolloServerPlugin<{ req: Request }> {
  constructor(private readonly limits: OperationLimits) {}

  async requestDidStart(): Promise<GraphQLRequestListener<{ req: Request }>> {
    return {
      didResolveOperation: async ({ request, document, operation, schema, contextValue }) => {
        if (!operation) return;
        const { req } = contextValue;
        try {
          await this.limits.admit({
            schema,
            document,
            operation,
            operationName: request.operationName,
            variables: request.variables,
            authorization: req.headers.authorization,
            clientIp: req.socket.remoteAddress ?? 'unknown',
          });
        } catch (error) {
          throw error instanceof GraphQLError ? overHttp(error) : error;
        }
      },
    };
  }
}
