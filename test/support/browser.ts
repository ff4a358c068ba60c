import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { REPO_ROOT } from './gateway-process';

/** Where the console tests keep their screenshots (scripts/test.sh leaves them for people to look at). */
export const SCREENSHOTS = join(REPO_ROOT, '.cache', 'console-screenshots');

/** Debian's Chromium (scripts/ensure-chromium.sh installs it and exports TOOLGATE_CHROMIUM). */
function chromiumPath(): string {
  const candidates = [process.env.TOOLGATE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((path): path is string => Boolean(path));
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`no Chromium at ${candidates.join(', ')}: run bash scripts/ensure-chromium.sh (it installs Debian's chromium)`);
  return found;
}

export function launchChromium(): Promise<Browser> {
  // The sandbox needs user namespaces, which a root CI user or a container often lacks.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** axe's WCAG 2 A/AA findings of serious or critical impact: the obvious failures, as `rule: target` lines. */
export async function seriousAccessibilityFindings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} (${violation.help})`));
}
