import type { Browser } from 'playwright-core';
import { describeInBrowser, launchBrowser } from './support/browser';
import { startTestApp, TestApp } from './support/test-app';

// /docs (Swagger UI) under the Content-Security-Policy it is now sent with: it still draws the
// API's operations, and the browser refuses nothing it needs.
describeInBrowser('/docs in Chromium', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the operations, with no CSP refusal and no script error', async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: true });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const answer = await page.goto(`${t.baseUrl}/docs/`);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByText('/api/v1/posts', { exact: true }).first().waitFor({ timeout: 30_000 });
    // "Try it out" runs a request from the page: the CSP lets it reach this origin.
    const status = await page.evaluate(async () => (await fetch('/api/v1/openapi.json')).status);
    expect(status).toBe(200);
    expect(problems).toEqual([]);
    await ctx.close();
  });
});
