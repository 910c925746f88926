/**
 * The web UI in a real browser: a Chromium (find-chromium.ts: CHROMIUM_PATH, the system's, or the one an npm dev
 * dependency ships) driven by playwright-core. Starts a pipeline with a human gate
 * from the page, watches the gate turn to running, answers with the option button, and sees the run finish.
 * Screenshots go to test-artifacts/ (gitignored).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { findChromium } from './find-chromium.js';
import { readFixture, startTestServer, type TestServer } from './test-server.js';

const ARTIFACTS = new URL('../test-artifacts/', import.meta.url).pathname;

let server: TestServer | undefined;
let browser: BrowserContext | undefined;
let userDataDir: string | undefined;
afterEach(async () => {
  await browser?.close();
  await server?.close();
  if (userDataDir !== undefined) await rm(userDataDir, { recursive: true, force: true });
  browser = undefined;
  server = undefined;
  userDataDir = undefined;
});

async function launchChromium(): Promise<BrowserContext> {
  const found = await findChromium();
  userDataDir = await mkdtemp(join(tmpdir(), 'attractor-chromium-'));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: found.executablePath,
    headless: true,
    args: [
      ...found.args,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1440, height: 960 },
  });
}

describe('web UI in Chromium (issue #9 "Web UI")', () => {
  it('starts a pipeline with a human gate, shows it running, takes the answer from a button and shows the run finish', async () => {
    server = await startTestServer();
    browser = await launchChromium();
    await mkdir(ARTIFACTS, { recursive: true });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(server.url);
    // The page asks for the token once and keeps it for the tab.
    await page.locator('#token-dialog[open]').waitFor();
    await page.fill('#token-input', server.token);
    await page.click('#token-submit');
    await page.locator('#view-new:not([hidden])').waitFor();

    await page.fill('#dot-input', await readFixture('review-gate.dot'));
    await page.screenshot({ path: join(ARTIFACTS, 'start-form.png') });
    await page.click('#start-button');
    await page.waitForURL(/#\/runs\/.+-review$/);

    // The gate node turns to running (and waiting) in the live SVG; the question shows one button per option.
    const gate = page.locator('#graph g#node-approve');
    await page.locator('#graph g#node-approve.status-running.current').waitFor();
    expect(await gate.getAttribute('class')).toContain('waiting');
    await page.locator('#graph g#node-draft.status-success').waitFor();
    await page.locator('#question-panel:not([hidden])').waitFor();
    expect(await page.locator('#questions .question-item .text').textContent()).toBe('Approve the draft?');
    expect(await page.locator('#questions button[data-answer]').allTextContents()).toEqual([
      'A Approve',
      'R Revise',
    ]);
    await expect.poll(() => page.locator('#run-state').textContent()).toBe('waiting');
    await page.locator('#event-log tr[data-type="interview.started"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'run-waiting.png'), fullPage: true });

    await page.click('#questions button[data-answer="A"]');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    await page.locator('#graph g#node-approve.status-success').waitFor();
    await page.locator('#question-panel[hidden]').waitFor({ state: 'attached' });
    await page.locator('#event-log tr[data-type="pipeline.completed"]').waitFor();
    await page.locator('#context-table td', { hasText: 'human.gate.selected' }).waitFor();
    expect(await page.locator('#cancel-button').isHidden()).toBe(true);

    // Stage files open in the page (fetched with the token).
    await page.click('#stage-files a[data-node="draft"][data-file="prompt.md"]');
    await expect
      .poll(() => page.locator('#file-viewer-body').textContent())
      .toContain('Draft the change for: Ship a reviewed change');

    // The runs list shows the run with its final state; the token survives a reload of the tab.
    await expect.poll(() => page.locator('#run-list .badge').first().textContent()).toBe('success');
    await page.reload();
    await page.locator('#run-state[data-state="success"]').waitFor();
    expect(await page.locator('#token-dialog').getAttribute('open')).toBeNull();
    await page.screenshot({ path: join(ARTIFACTS, 'run-finished.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
