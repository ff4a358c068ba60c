import { Inject, Injectable } from '@nestjs/common';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../../registry.module-definition';
import { ToolSource } from '../tool-source.port';
import { discoverPluginPackages } from './plugin.discovery';
import { loadPlugin, type PluginLoadResult } from './plugin.loader';

const IMPORT_CONCURRENCY = 4;

/** npm plugin packages (a `toolgate` field in package.json) found under the configured plugin folders. */
@Injectable()
export class NpmPackageToolSource extends ToolSource {
  readonly kind = 'npm';

  constructor(@Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions) {
    super();
  }

  /** Each package is imported in a process of its own; a few at a time, so a large folder cannot swamp the machine. */
  async load(): Promise<PluginLoadResult[]> {
    const discovered = await discoverPluginPackages(this.options.pluginDirs);
    const results: PluginLoadResult[] = new Array(discovered.length);
    let next = 0;
    const importer = async () => {
      for (let i = next++; i < discovered.length; i = next++) results[i] = await loadPlugin(discovered[i], undefined, this.options.pluginImport);
    };
    await Promise.all(Array.from({ length: Math.min(IMPORT_CONCURRENCY, discovered.length) }, importer));
    return results;
  }
}
