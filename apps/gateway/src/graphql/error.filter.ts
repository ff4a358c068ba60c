import { type ArgumentsHost, BadRequestException, Catch, HttpException, Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { GqlContextType } from '@nestjs/graphql';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { GraphQLError } from 'graphql';

/** Field errors from class-validator, flattened to `{path, message}`. */
function validationDetails(exception: BadRequestException): { path: string; message: string }[] {
  const body = exception.getResponse() as { message?: unknown };
  const messages = Array.isArray(body.message) ? body.message : [body.message];
  return messages.filter((m): m is string => typeof m === 'string').map((message) => ({ path: `/${message.split(' ')[0].replace(/\./g, '/')}`, message }));
}

/** The one place where domain error codes become GraphQL `extensions.code`. */
export function toGraphQLError(exception: unknown, logger: Logger): GraphQLError {
  if (exception instanceof GraphQLError) return exception;
  if (exception instanceof ToolgateError) {
    const retry = exception.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: exception.retryAfterSeconds };
    return new GraphQLError(exception.message, { extensions: { code: exception.code, details: exception.details, ...retry } });
  }
  if (exception instanceof BadRequestException) {
    const details = validationDetails(exception);
    return new GraphQLError(`invalid input: ${details.map((d) => d.message).join('; ')}`, { extensions: { code: ErrorCode.INVALID_ARGUMENTS, details } });
  }
  if (exception instanceof HttpException && exception.getStatus() === 403) {
    return new GraphQLError(exception.message, { extensions: { code: ErrorCode.FORBIDDEN } });
  }
  logger.error({ err: exception }, 'unexpected error');
  return new GraphQLError('internal error', { extensions: { code: ErrorCode.INTERNAL } });
}

@Catch()
export class ErrorFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('Errors');

  override catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType<GqlContextType>() === 'graphql') return toGraphQLError(exception, this.logger);
    return super.catch(exception, host);
  }
}
