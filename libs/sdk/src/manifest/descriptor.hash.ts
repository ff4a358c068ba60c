import { createHash } from 'node:crypto';
import type { ToolManifest } from './manifest.types';

/** JSON with object keys sorted at every level, so equal manifests hash equally. Functions are dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (typeof v === 'function' || v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((k) => {
      const v = (value as Record<string, unknown>)[k];
      return v !== undefined && typeof v !== 'function';
    })
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** The data part of a manifest: what is stored, shown and hashed. */
export type ToolDescriptor = Omit<ToolManifest, 'run' | 'healthCheck'> & { hasHealthCheck: boolean };

export function toDescriptor(manifest: ToolManifest): ToolDescriptor {
  const { run: _run, healthCheck, ...data } = manifest;
  return { ...data, hasHealthCheck: typeof healthCheck === 'function' };
}

/** sha256 of the canonical descriptor: pinned per tool version so a silent change is detectable. */
export function descriptorHash(manifest: ToolManifest | ToolDescriptor): string {
  const descriptor = 'hasHealthCheck' in manifest ? manifest : toDescriptor(manifest);
  return createHash('sha256').update(canonicalJson(descriptor)).digest('hex');
}
