import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (whose own browser download cannot be reached). */
export const CHROMIUM = process.env.CHORUS_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

if (!available && process.env.CHORUS_TEST_REQUIRE_BROWSER === 'true') {
  throw new Error(`CHORUS_TEST_REQUIRE_BROWSER is set but there is no Chromium at ${CHROMIUM} (apt-get install chromium).`);
}

/** `describe`, or, without Chromium, a skipped block whose name says why (`npm test` still passes). */
export const describeInBrowser: (name: string, fn: () => void) => void = available
  ? describe
  : (name, fn) => describe.skip(`${name} [SKIPPED: no Chromium at ${CHROMIUM}; apt-get install chromium]`, fn);

export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root in a container has no sandbox; the rest keeps Chromium from reaching for the network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * WCAG 2.2 A and AA violations that axe-core finds on the page as it is now. Injected through
 * the DevTools protocol (page.evaluate), which the pages' CSP does not govern.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: any }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] } });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
}
