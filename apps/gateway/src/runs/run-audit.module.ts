import { Global, Module } from '@nestjs/common';
import { RunEventBus, RunRecorder, TypeormRunRecorder } from '@toolgate/executor';

/** The audit trail of runs on the catalog database, and the live stream of its events (published after each commit). */
@Global()
@Module({
  providers: [RunEventBus, { provide: RunRecorder, useClass: TypeormRunRecorder }],
  exports: [RunEventBus, RunRecorder],
})
export class RunAuditModule {}
