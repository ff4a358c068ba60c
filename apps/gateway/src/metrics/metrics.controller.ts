import { Controller, Get, Inject, NotFoundException, Req, Res } from '@nestjs/common';
import { AccessPolicyService } from '@toolgate/registry';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import type { Request, Response } from 'express';
import { bearerToken } from '../auth/principal.guard';
import { APP_CONFIG, type AppConfig } from '../config/app.config';
import { OperationLimits } from '../graphql/operation-limits.service';
import { GatewayCollectors } from './gateway.collectors';

/** What a scrape costs against the caller's rate budget: about one small GraphQL query. */
const SCRAPE_COST = 1;

/**
 * Prometheus metrics at GET /metrics. The labels name every tenant's tools and runs, so with API keys
 * configured only a platform admin's key may read them (Prometheus: `authorization: {credentials: <key>}`);
 * without keys, as the rest of the API, the local caller may. Charged like any request first, so
 * guessing keys here is rate limited too.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly collectors: GatewayCollectors,
    private readonly access: AccessPolicyService,
    private readonly limits: OperationLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.config.gateway.TOOLGATE_METRICS) throw new NotFoundException('metrics are off (TOOLGATE_METRICS=false)');
    const refused = await this.limits.charge(req.headers.authorization, req.socket.remoteAddress ?? 'unknown', SCRAPE_COST);
    if (refused) {
      res.setHeader('Retry-After', String(refused.retryAfterSeconds));
      return refuse(res, 429, ErrorCode.RATE_LIMITED, `rate limit reached: retry in ${refused.retryAfterSeconds} s`);
    }
    const token = bearerToken(req.headers.authorization);
    try {
      this.access.assertPlatformAdmin(this.access.authenticate(token), 'reading /metrics');
    } catch (error) {
      if (!ToolgateError.is(error)) throw error;
      if (error.code === ErrorCode.UNAUTHENTICATED) res.setHeader('WWW-Authenticate', token ? 'Bearer realm="toolgate", error="invalid_token"' : 'Bearer realm="toolgate"');
      return refuse(res, error.code === ErrorCode.UNAUTHENTICATED ? 401 : 403, error.code, error.message);
    }
    const body = await this.collectors.scrape();
    // end(), not send(): Express would reorder the content type's parameters.
    res.status(200).setHeader('Content-Type', this.collectors.contentType).setHeader('Cache-Control', 'no-store').end(body);
  }
}

function refuse(res: Response, status: number, code: ErrorCode, message: string): void {
  res.status(status).json({ error: { code, message } });
}
