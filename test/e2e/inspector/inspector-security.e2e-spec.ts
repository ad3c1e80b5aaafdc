import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import {
  browserAvailable,
  launchTestBrowser,
  SCREENSHOTS_DIR,
  type TestBrowser,
} from '../../fixtures/inspector-browser.js';
import { TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * The inspector page of an agent behind an API key (CONFORMANCE-AGENT.md, "Security"): refused without the key, page
 * and files alike; the login field keeps the key for the page, which then sends it as the header on its calls.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describe(`inspector page behind an API key (${TEST_HTTP_ADAPTER})`, () => {
  let agent: RunningAgent;
  let inspector: string;

  beforeAll(async () => {
    agent = await startConformanceAgent({
      adapter: TEST_HTTP_ADAPTER,
      inspector: { path: '/tools/inspector' },
      security: { apiKeys: { alice: 'key-a' } },
    });
    inspector = `${agent.url}/tools/inspector`;
  });

  afterAll(async () => {
    await agent?.close();
  });

  it.each([
    '',
    '/inspector.js',
    '/a2a-transport.js',
    '/schema-checks.js',
    '/task-list.js',
    '/dom.js',
    '/inspector.css',
  ])('refuses %s without the key (401 with WWW-Authenticate), serves it with the key', async (file) => {
    const refused = await fetch(`${inspector}${file}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBeTruthy();
    expect(await refused.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
    const wrongKey = await fetch(`${inspector}${file}`, { headers: { 'X-API-Key': 'key-b' } });
    expect(wrongKey.status).toBe(401);
    const served = await fetch(`${inspector}${file}`, { headers: { 'X-API-Key': 'key-a' } });
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('no-store');
    expect(served.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('takes the key from the login cookie only for a header the card names', async () => {
    const cookie = (header: string, value: string) =>
      `a2a-inspector-credential=${encodeURIComponent(JSON.stringify({ header, value }))}`;
    const served = await fetch(inspector, { headers: { cookie: cookie('X-API-Key', 'key-a') } });
    expect(served.status).toBe(200);
    const otherHeader = await fetch(inspector, { headers: { cookie: cookie('X-Other', 'key-a') } });
    expect(otherHeader.status).toBe(401);
    // The operations never read the cookie.
    const call = await fetch(`${agent.url}/tasks`, {
      headers: { cookie: cookie('X-API-Key', 'key-a'), 'A2A-Version': '1.0' },
    });
    expect(call.status).toBe(401);
  });

  it('does not serve the page at the default path when another is given', async () => {
    expect((await fetch(`${agent.url}/a2a/inspector`, { headers: { 'X-API-Key': 'key-a' } })).status).toBe(404);
  });

  describeInBrowser('in Chromium', () => {
    let browser: TestBrowser;
    let page: Page;

    beforeAll(async () => {
      browser = await launchTestBrowser();
      page = await browser.context.newPage();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    it('shows a login page instead, then the inspector once the key is given, whose calls carry it', async () => {
      const refused = await page.goto(inspector);
      expect(refused?.status()).toBe(401);
      expect(await page.locator('#agent-name').count()).toBe(0);
      const login = page.getByRole('form', { name: 'Sign in' });
      await login
        .getByLabel('Security scheme')
        .locator('option', { hasText: 'X-API-Key' })
        .waitFor({ state: 'attached' });
      await login.getByLabel('Credential').fill('key-a');
      await login.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('body[data-ready="true"]').waitFor();
      expect(await page.getByRole('list', { name: 'Security schemes' }).innerText()).toContain('X-API-Key');
      await page.getByLabel('Text', { exact: true }).fill('echo with a key');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.locator('#task-state', { hasText: /^COMPLETED$/ }).waitFor();
      expect(await page.locator('#artifacts').innerText()).toContain('with a key');
      await page.screenshot({ path: join(SCREENSHOTS_DIR, `${TEST_HTTP_ADAPTER}-api-key.png`), fullPage: true });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('form', { name: 'Sign in' }).waitFor();
    });
  });
});
