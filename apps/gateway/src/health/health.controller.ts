import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { HealthMonitor, ResilientToolInvoker } from '@toolgate/executor';
import { ToolIndex } from '@toolgate/retrieval';
import { DataSource } from 'typeorm';
import { SyncToolIndexUseCase } from '../use-cases/sync-tool-index.use-case';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly dataSource: DataSource,
    private readonly index: ToolIndex,
    private readonly indexSync: SyncToolIndexUseCase,
    private readonly invoker: ResilientToolInvoker,
    private readonly toolHealth: HealthMonitor,
  ) {}

  /** Liveness: the process answers. */
  @Get()
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /**
   * Readiness: the database answers and the tool index is synced and answering. Shared (tool-wide)
   * open breakers and unhealthy tool versions are listed under `tools` without failing readiness:
   * other tools still run. The endpoint is public, so it names states only, never a failure message
   * or a health check's detail (tenants read their own in `toolHealth`).
   */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => this.database.pingCheck('database', { connection: this.dataSource, timeout: 2000 }),
      async () => {
        const indicator = this.indicators.check('index');
        try {
          await this.index.ping();
          const documents = (await this.index.ids()).length;
          return this.indexSync.ready ? indicator.up({ driver: this.index.driver, documents }) : indicator.down({ driver: this.index.driver, reason: 'not synced yet' });
        } catch (error) {
          return indicator.down({ driver: this.index.driver, reason: (error as Error).message });
        }
      },
      () => {
        const openBreakers = this.invoker
          .states()
          .filter((b) => b.state !== 'CLOSED')
          .map((b) => ({ tool: `${b.toolId}@${b.version}`, state: b.state }));
        const unhealthy = this.toolHealth
          .snapshot()
          .filter((h) => !h.healthy)
          .map((h) => ({ tool: `${h.toolId}@${h.version}`, checkedAt: h.checkedAt }));
        return this.indicators.check('tools').up({ openBreakers, unhealthy });
      },
    ]);
  }
}
