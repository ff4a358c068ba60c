import { Injectable } from '@nestjs/common';
import type { PluginLoadResult } from '../npm/plugin.loader';
import { ToolSource } from '../tool-source.port';
import { RemoteWorkers } from './remote.workers';

/** The tools remote workers announce over NATS (`toolgate worker`): one package per announced package version, `execution: remote`. */
@Injectable()
export class RemoteToolSource extends ToolSource {
  readonly kind = 'remote';
  override readonly changes$;

  constructor(private readonly workers: RemoteWorkers) {
    super();
    this.changes$ = workers.changes$;
  }

  load(): Promise<PluginLoadResult[]> {
    return this.workers.load();
  }
}
