import { type TrustedCodeLookup, TrustedPluginCode } from '../runtime/trusted-plugin.code';

export interface HealthVerdict {
  healthy: boolean;
  detail?: string;
}

/** Port: runs one tool version's `healthCheck`; undefined when the tool declares none. */
export abstract class ToolHealthProbe {
  abstract check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined>;
}

/** Runs health checks in the server's own thread; IsolatedToolInvoker is the probe that runs them in the plugin's workers. */
export class InProcessHealthProbe extends ToolHealthProbe {
  private readonly code: TrustedPluginCode;

  constructor(catalog: TrustedCodeLookup) {
    super();
    this.code = new TrustedPluginCode(catalog);
  }

  async check(toolId: string, version: string, signal: AbortSignal): Promise<HealthVerdict | undefined> {
    const manifest = this.code.manifest(toolId, version);
    if (!manifest?.healthCheck) return undefined;
    const verdict = await manifest.healthCheck(signal);
    return typeof verdict === 'boolean' ? { healthy: verdict } : { healthy: verdict.healthy === true, ...(verdict.detail ? { detail: verdict.detail } : {}) };
  }
}
