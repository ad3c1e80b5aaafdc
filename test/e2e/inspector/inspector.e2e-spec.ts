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
 * The inspector page in a real browser against the conformance agent (CONFORMANCE-AGENT.md): the card, a stream
 * followed chunk by chunk, an input-required task answered in place, a cancel, the task list, on both HTTP bindings.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser(`inspector page in Chromium (${TEST_HTTP_ADAPTER})`, () => {
  let agent: RunningAgent;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    agent = await startConformanceAgent({ adapter: TEST_HTTP_ADAPTER, inspector: {} });
    browser = await launchTestBrowser();
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
  });

  async function openInspector(): Promise<void> {
    const response = await page.goto(`${agent.url}/a2a/inspector`);
    expect(response?.status()).toBe(200);
    await page.locator('body[data-ready="true"]').waitFor();
  }

  async function sendText(text: string, binding = 'JSONRPC'): Promise<void> {
    await page.getByLabel('Binding').selectOption(binding);
    await page.getByLabel('Text', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
  }

  async function stateBecomes(state: string): Promise<void> {
    await page.locator('#task-state', { hasText: new RegExp(`^${state}$`) }).waitFor();
  }

  async function screenshot(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${TEST_HTTP_ADAPTER}-${name}.png`), fullPage: true });
  }

  it('shows the card: name, interfaces, security, signature, skills', async () => {
    await openInspector();
    await page.getByRole('heading', { name: /A2A conformance agent/ }).waitFor();
    const interfaces = await page.getByRole('list', { name: 'Interfaces' }).innerText();
    expect(interfaces).toContain('JSONRPC');
    expect(interfaces).toContain('HTTP+JSON');
    expect(await page.getByRole('list', { name: 'Security schemes' }).innerText()).toContain('anonymous');
    expect(await page.locator('#card-facts').innerText()).toContain('absent');
    expect(await page.getByRole('list', { name: 'Skills' }).getByRole('listitem').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('Binding').locator('option').allInnerTexts()).toEqual(['JSON-RPC', 'HTTP+JSON']);
  });

  it.each(['JSONRPC', 'HTTP+JSON'])('follows `stream 20` over %s: 20 chunks, then COMPLETED', async (binding) => {
    await openInspector();
    await sendText('stream 20', binding);
    await stateBecomes('COMPLETED');
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('stream ended').waitFor();
    expect(await timeline.locator('li[data-kind="artifact"]').count()).toBe(20);
    expect(await timeline.locator('li[data-kind="status"]').last().innerText()).toBe('status COMPLETED');
    const chunks = Array.from({ length: 20 }, (_, i) => `chunk ${i + 1}`).join('');
    expect(await page.locator('#artifacts pre').innerText()).toBe(chunks);
    await screenshot(`stream-${binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}`);
  });

  it('answers an input-required task in place, which then completes', async () => {
    await openInspector();
    await sendText('ask');
    await stateBecomes('INPUT_REQUIRED');
    const form = page.getByRole('form', { name: 'Answer the agent' });
    await form.getByLabel('Answer').fill('blue');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await stateBecomes('COMPLETED');
    expect(await page.locator('#artifacts').innerText()).toContain('answer: blue');
    expect(await form.isHidden()).toBe(true);
  });

  it('cancels a slow task: CANCELED', async () => {
    await openInspector();
    await sendText('slow 60000');
    await stateBecomes('WORKING');
    await page.getByRole('button', { name: 'Cancel task' }).click();
    await stateBecomes('CANCELED');
    expect(await page.getByRole('button', { name: 'Cancel task' }).isDisabled()).toBe(true);
  });

  it('resubscribes to a running task and sees it end', async () => {
    await openInspector();
    await sendText('slow 1500', 'HTTP+JSON');
    await stateBecomes('WORKING');
    await page.getByRole('button', { name: 'Resubscribe' }).click();
    await stateBecomes('COMPLETED');
  });

  it('lists tasks, filtered by state and context, page by page', async () => {
    await openInspector();
    for (let i = 0; i < 11; i++) {
      await sendText(`echo page ${i}`);
      await stateBecomes('COMPLETED');
    }
    const contextId = await page.locator('#context-id').innerText();
    await page.getByLabel('Filter by state').selectOption('TASK_STATE_COMPLETED');
    await page.getByRole('button', { name: 'List tasks' }).click();
    const listStatus = page.getByRole('status', { name: 'Task list status' });
    const rows = page.getByRole('table', { name: 'Task list' }).locator('tbody tr');
    await listStatus.getByText(/^1–10 of \d+ tasks$/).waitFor();
    expect(await rows.count()).toBe(10);
    for (const state of await rows.locator('td:nth-child(3)').allInnerTexts()) expect(state).toBe('COMPLETED');
    await page.getByRole('button', { name: 'Next page' }).click();
    await listStatus.getByText(/^11–/).waitFor();
    await page.getByRole('button', { name: 'Previous page' }).click();
    await listStatus.getByText(/^1–10 of/).waitFor();

    await page.getByLabel('Filter by context').fill(contextId);
    await page.getByLabel('Filter by state').selectOption('');
    await page.getByRole('button', { name: 'List tasks' }).click();
    await listStatus.getByText('1–1 of 1 tasks').waitFor();
    await rows.getByRole('button').click();
    await stateBecomes('COMPLETED');
    expect(await page.locator('#artifacts').innerText()).toContain('page 10');
    await screenshot('task-list');
  });

  it('checks a data part as JSON before sending', async () => {
    await openInspector();
    await page.getByLabel('Data (JSON)').fill('{ not json');
    expect(await page.getByRole('list', { name: 'Schema checks' }).innerText()).toContain('not JSON');
    await page.getByLabel('Data (JSON)').fill('{"ok": true}');
    expect(await page.getByRole('list', { name: 'Schema checks' }).getByRole('listitem').count()).toBe(0);
  });
});
