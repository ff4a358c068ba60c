import { type CanActivate, createParamDecorator, type ExecutionContext, Injectable } from '@nestjs/common';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import { AccessPolicyService, type Principal } from '@toolgate/registry';
import type { Request } from 'express';

interface GraphqlContext {
  req: Request & { principal?: Principal };
}

/** The key of an `Authorization: Bearer <key>` header; null without one. */
export const bearerToken = (header: string | undefined): string | null => {
  const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return match ? match[1] : null;
};

/** Resolves `Authorization: Bearer <key>` to a principal for every GraphQL operation; REST health stays public. */
@Injectable()
export class PrincipalGuard implements CanActivate {
  constructor(private readonly access: AccessPolicyService) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<GqlContextType>() !== 'graphql') return true;
    const { req } = GqlExecutionContext.create(context).getContext<GraphqlContext>();
    req.principal ??= this.access.authenticate(bearerToken(req.headers.authorization));
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const { req } = GqlExecutionContext.create(context).getContext<GraphqlContext>();
  return req.principal as Principal;
});
