import { Inject, Injectable } from '@nestjs/common';
import { REGISTRY_OPTIONS, type RegistryModuleOptions } from '../../registry.module-definition';
import { ToolSource } from '../tool-source.port';
import { discoverPluginPackages } from './plugin.discovery';
import { loadPlugins, type PluginLoadResult } from './plugin.loader';
import { PluginImportCache } from './plugin-import.cache';

/** npm plugin packages (a `toolgate` field in package.json): installed versions, and those found under the configured plugin folders. */
@Injectable()
export class NpmPackageToolSource extends ToolSource {
  readonly kind = 'npm';

  private readonly cache: PluginImportCache;

  constructor(@Inject(REGISTRY_OPTIONS) private readonly options: RegistryModuleOptions) {
    super();
    this.cache = new PluginImportCache(options.pluginImportCache ?? null);
  }

  async load(): Promise<PluginLoadResult[]> {
    this.cache.beginPass();
    return loadPlugins(await discoverPluginPackages(this.options.pluginDirs, this.options.pluginInstallDir), this.options.pluginImport, this.cache);
  }
}
