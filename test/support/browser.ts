import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { createWorkspace } from './factories';
import { Client } from './http';
import { MailServer } from './mail';
import { freePort } from './processes';
import { cancelPending, holdProcessorLock } from './processor-lock';
import { closeReceivers, Receiver } from './receiver';
import { startTestApp } from './test-app';

/** Debian's Chromium, driven by playwright-core (whose own browser download cannot be reached). */
export const CHROMIUM = process.env.CHORUS_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

if (!available && process.env.CHORUS_TEST_REQUIRE_BROWSER === 'true') {
  throw new Error(`CHORUS_TEST_REQUIRE_BROWSER is set but there is no Chromium at ${CHROMIUM} (apt-get install chromium).`);
}

/**
 * `describe`, or a skipped block whose name says why: without Chromium (`npm test` still passes),
 * and on Citus (`npm run test:citus` tests the pages over HTTP; what a browser does with them
 * does not depend on the engine, and `npm test` drives them in Chromium).
 */
export const describeInBrowser: (name: string, fn: () => void) => void = !available
  ? (name, fn) => describe.skip(`${name} [SKIPPED: no Chromium at ${CHROMIUM}; apt-get install chromium]`, fn)
  : process.env.CHORUS_TEST_CITUS === 'true'
    ? (name, fn) => describe.skip(`${name} [SKIPPED on Citus: npm test drives the pages in Chromium]`, fn)
    : describe;

/** `extraArgs`: more of Chromium's switches (the widget's test blocks third-party cookies). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root in a container has no sandbox; the rest keeps Chromium from reaching for the network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
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

/**
 * What a browser test of the pages runs against: the app on a port of its own, served (over
 * http) at the address the browser uses, so that its cookies and Origin are the pages' own; its
 * outbox processor sending to a real SMTP peer and local receivers; a workspace with a key; and
 * Chromium. `stop` undoes all of it.
 */
export async function startBrowserTest(env: Record<string, string> = {}, browserArgs: string[] = []) {
  const releaseLock = await holdProcessorLock();
  const smtp = await new MailServer().start();
  const receiver = await Receiver.start();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ PORT: String(port), PUBLIC_BASE_URL: base, BASE_URL: base, RUN_WORKER: 'true', SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...env });
  const ws = await createWorkspace(t.app);
  const browser = await launchBrowser(browserArgs);
  return {
    t,
    ws,
    api: new Client(t.baseUrl, ws.key),
    base,
    smtp,
    receiver,
    browser,
    async stop() {
      await browser.close();
      await cancelPending(t.db, [ws.id]);
      await t.close();
      await closeReceivers();
      await smtp.close();
      await releaseLock();
    },
  };
}
