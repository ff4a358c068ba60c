import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, type DynamicModule, Get, Module, ServiceUnavailableException } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import type { Response } from 'express';

export const CONSOLE_PATH = '/console';

/** The console's build (`npm run build` makes it); null when the package or its build is missing. */
export function consoleBuild(): string | null {
  try {
    const dist = join(dirname(require.resolve('@toolgate/console/package.json')), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : null;
  } catch {
    return null;
  }
}

/**
 * The console holds no data: every answer it shows comes from /graphql with the key the person typed.
 * So the page itself may load without a key, but nothing may frame it (an approval button is worth
 * clickjacking) and it may talk to this origin only.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // React Flow and Recharts position elements with inline styles.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

function setHeaders(res: Response, path: string): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  // Built assets carry a content hash in their names; the page must always be fresh to point at the new ones.
  res.setHeader('Cache-Control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
}

@Controller(CONSOLE_PATH.slice(1))
class ConsoleNotBuiltController {
  @Get()
  missing(): never {
    throw new ServiceUnavailableException('the console is not built: run `npm run build` (it builds apps/console), then restart');
  }
}

@Module({})
export class ConsoleModule {
  /**
   * Serves the built console under /console, or says how to build it; nothing when turned off. A path
   * that names no file of the build (a stale asset, a traversal attempt) gets the page itself, never an
   * error that would name where the build lives on disk.
   */
  static forRoot(enabled: boolean): DynamicModule {
    if (!enabled) return { module: ConsoleModule };
    const rootPath = consoleBuild();
    if (!rootPath) return { module: ConsoleModule, controllers: [ConsoleNotBuiltController] };
    return {
      module: ConsoleModule,
      imports: [ServeStaticModule.forRoot({ rootPath, serveRoot: CONSOLE_PATH, serveStaticOptions: { setHeaders, index: 'index.html' } })],
    };
  }
}
