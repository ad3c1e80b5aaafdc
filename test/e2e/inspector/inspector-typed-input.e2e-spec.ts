import type { INestApplication } from '@nestjs/common';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { TravelModule } from '../../../apps/travel-agent/src/travel.module.js';
import {
  browserAvailable,
  launchTestBrowser,
  SCREENSHOTS_DIR,
  type TestBrowser,
} from '../../fixtures/inspector-browser.js';
import { startTestApp, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * The inspector against the travel agent, whose flight skill declares a typed input: the skill's JSON Schema shown in
 * the card and the composer, the data part checked against it before sending, then sent and answered. With
 * `A2A_INSPECTOR_DOCS_SCREENSHOT=1`, it also refreshes the screenshot in docs/images/inspector.png.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser(`inspector page with a skill's typed input (${TEST_HTTP_ADAPTER})`, () => {
  let app: INestApplication;
  let url: string;
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(
      TravelModule.forRoot({ baseUrl: 'http://travel.example.com', stepDelayMs: 0, inspector: {} }),
    ));
    browser = await launchTestBrowser();
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('checks the data part against the skill input schema, then books the flight it describes', async () => {
    await page.goto(`${url}/a2a/inspector`);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.getByRole('list', { name: 'Skills' }).textContent()).toContain('"passengers"');
    expect(await page.getByRole('list', { name: 'Extensions' }).innerText()).toContain('skill-input-schema');

    await page.getByLabel('Skill', { exact: true }).selectOption('book-flight');
    expect(await page.getByLabel('Input schema').innerText()).toContain('"from"');
    const checks = page.getByRole('list', { name: 'Schema checks' });
    await page.getByLabel('Data (JSON)').fill('{"from": "Paris", "to": 7, "passengers": [{}], "seat": "12A"}');
    expect(await checks.getByRole('listitem').allInnerTexts()).toEqual(
      expect.arrayContaining([
        'data.date: required',
        'data.to: expected string, got number',
        'data.passengers[0].name: required',
        'data.seat: not a field of this input',
      ]),
    );

    await page
      .getByLabel('Data (JSON)')
      .fill('{"from": "Paris", "to": "Tokyo", "date": "2026-12-24", "passengers": [{"name": "Ada"}]}');
    expect(await checks.getByRole('listitem').count()).toBe(0);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('#task-state', { hasText: /^COMPLETED$/ }).waitFor();
    expect(await page.getByLabel('Artifact itinerary').innerText()).toContain('"Tokyo"');
    const timeline = await page.getByRole('list', { name: 'Timeline' }).innerText();
    expect(timeline).toContain('WORKING: Searching flights from Paris to Tokyo on 2026-12-24');
    expect(timeline).toContain('status COMPLETED: Booked');

    await page.getByLabel('Data (JSON)').fill('{"from": "Paris", "date": "2026-12-24"}');
    await page.getByRole('button', { name: 'List tasks' }).click();
    // The travel agent isolates anonymous callers, so ListTasks is refused to them: the list says why.
    await page
      .getByRole('status', { name: 'Task list status' })
      .getByText(/^Could not list tasks: ListTasks needs an authenticated caller/)
      .waitFor();
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${TEST_HTTP_ADAPTER}-typed-input.png`), fullPage: true });
    if (process.env.A2A_INSPECTOR_DOCS_SCREENSHOT === '1')
      await page.screenshot({ path: join(process.cwd(), 'docs', 'images', 'inspector.png'), fullPage: true });
  });
});
