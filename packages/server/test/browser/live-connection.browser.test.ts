/**
 * The connection indicator and convergence in Chromium: a run page and the runs list open while their server stops
 * and starts again on the same port and runs directory say so (reconnecting, then offline; clocks stop), then
 * converge to what the restarted server's API says once it is back (within 5 s on an idle machine); a failed action shows the server's
 * error; a 401 (a server restarted with another token) opens the sign-in dialog and the new token makes the page live
 * again, following a resume another client made. axe-core at 1,400 and 390 px.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails } from '../../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from '../test-server.js';
import { type BrowserSession, checkAccessibility, launchBrowser, screenshot } from './browser-session.js';

const servers: TestServer[] = [];
let browser: BrowserSession | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  for (const server of servers.splice(0)) await server.close();
});

/**
 * How long a page may take to show the API's state once its server is back. A page retries its streams every 2 s at
 * most, so on an idle machine it converges within the 5 s; the suite runs beside other work loading both
 * cores, so the test waits on the condition, not on that wall-clock bound.
 */
const CONVERGE_MS = 30_000;

/** A server on `port` (0: any) over `runsDir` (default: a fresh one), closed after the test. */
async function start(options: { port?: number; runsDir?: string; token?: string } = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

/** A run of `review-gate.dot` waiting at its gate. */
async function waitingRun(server: TestServer): Promise<string> {
  const id = await server.startRun(await readFixture('review-gate.dot'));
  await waitFor(
    async () =>
      (await server.json<{ questions: PendingQuestion[] }>(`/pipelines/${id}/questions`)).questions[0],
    'the run to wait at its gate',
  );
  return id;
}

function connectionState(page: Page): Promise<string | null> {
  return page.locator('#connection-status').getAttribute('data-state');
}

/** Axe at 1,400 and 390 px; leaves the page at 1,400 px. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  await screenshot(page, `${name}-1400`);
  expect(await checkAccessibility(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, `${name}-390`);
  expect(await checkAccessibility(page)).toEqual([]);
  await page.setViewportSize({ width: 1400, height: 900 });
}

/** Waits until the connection-age text has changed twice: more than a second has passed on the page's own clock. */
async function letASecondPass(page: Page): Promise<void> {
  const age = page.locator('#connection-age');
  for (let tick = 0; tick < 2; tick++) {
    const before = await age.textContent();
    await expect.poll(() => age.textContent()).not.toBe(before);
  }
}

/**
 * Asserts that the clocks `shown` (each on its page) have stopped: they read the same before and after more than a
 * second on the page's own clock. A last event the page received just before it went offline (the stopping server's
 * cancellation, which reaches the run's stream after the runs list's stream has already ended) may still settle a
 * value once, so a changed value is read again over another second; a ticking clock changes every second and fails.
 */
async function expectClocksStopped(shown: readonly { page: Page; selector: string }[]): Promise<void> {
  const read = () => Promise.all(shown.map(({ page, selector }) => page.locator(selector).textContent()));
  let before = await read();
  for (let attempt = 0; ; attempt++) {
    for (const { page } of shown) await letASecondPass(page);
    const after = await read();
    if (after.every((value, index) => value === before[index]) || attempt === 2) {
      expect(after).toEqual(before);
      return;
    }
    before = after;
  }
}

describe('web UI: live connection state (issue "live state you can trust")', () => {
  it('a run page and the runs list show the server going away and converge to its API after a restart', async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    const id = await waitingRun(first);
    browser = await launchBrowser();
    const runPage = await browser.open(first, `/runs/${id}`);
    const listPage = await browser.open(first, '/');

    await runPage.locator('#cancel-button').waitFor();
    await expect.poll(() => runPage.locator('#run-state').textContent()).toBe('waiting');
    await expect.poll(() => connectionState(runPage)).toBe('live');
    expect(await runPage.locator('#connection-status').textContent()).toBe('Live');
    await expect
      .poll(() => runPage.locator('#connection-age').textContent())
      .toMatch(/^last event \d+ s ago$/);
    await listPage.locator(`tr[data-run="${id}"][data-state="waiting"]`).waitFor();
    await expect.poll(() => connectionState(listPage)).toBe('live');
    await checkBothWidths(runPage, 'live-connection-run-live');

    await first.close();
    // Both pages notice: reconnecting at once, offline once a retry has failed; neither says live meanwhile.
    for (const page of [runPage, listPage]) {
      await expect.poll(() => connectionState(page)).toMatch(/^(reconnecting|offline)$/);
      await expect.poll(() => connectionState(page)).toBe('offline');
      expect(await page.locator('#connection-status').textContent()).toContain(
        'Offline: the server cannot be reached',
      );
    }
    // Offline, the clocks stop: the run's duration and the row's do not move while a second passes.
    const duration = { page: runPage, selector: '.run-facts div:nth-child(2) dd' };
    const rowDuration = { page: listPage, selector: `tr[data-run="${id}"] td[data-label="Duration"]` };
    await expectClocksStopped([duration, rowDuration]);
    await checkBothWidths(runPage, 'live-connection-run-offline');
    await checkBothWidths(listPage, 'live-connection-list-offline');

    const second = await start({ port, runsDir: first.runsDir, token: first.token });
    const back = Date.now();
    const api = await second.json<RunDetails>(`/pipelines/${id}`);
    expect(api).toMatchObject({ state: 'cancelled', live: false, failureReason: 'server stopped' });
    await expect
      .poll(() => runPage.locator('#run-state').textContent(), { timeout: CONVERGE_MS })
      .toBe(api.state);
    await expect
      .poll(() => listPage.locator(`tr[data-run="${id}"]`).getAttribute('data-state'), {
        timeout: CONVERGE_MS - (Date.now() - back),
      })
      .toBe(api.state);
    // The page shows what the API says: no Cancel, no gate, Resume offered, and the clock stopped.
    expect(await runPage.locator('#cancel-button').count()).toBe(0);
    expect(await runPage.locator('#gate-panel').count()).toBe(0);
    expect(await runPage.locator('#resume-button').isVisible()).toBe(true);
    expect(await runPage.locator('#run-failure').textContent()).toBe('server stopped');
    // Each page is live again once every stream of it has reconnected: the state can converge through one stream
    // (the runs list's) while the run's own stream is still waiting for its next retry.
    for (const page of [runPage, listPage])
      await expect.poll(() => connectionState(page), { timeout: CONVERGE_MS }).toBe('live');
    await expectClocksStopped([duration]);
    await checkBothWidths(runPage, 'live-connection-run-converged');
    await screenshot(listPage, 'live-connection-list-converged-1400');

    // An action the server refuses shows its message: the run directory lost its pipeline meanwhile.
    await rm(join(second.runsDir, id, 'pipeline.dot'));
    const refusal = await second.call(`/pipelines/${id}/resume`, { method: 'POST' });
    expect(refusal.status).toBe(409);
    const { error } = (await refusal.json()) as { error: { message: string } };
    await runPage.click('#resume-button');
    await expect.poll(() => runPage.locator('#action-error').textContent()).toBe(error.message);
    await screenshot(runPage, 'live-connection-action-error-1400');
    expect(browser.pageErrors).toEqual([]);
  });

  it('a 401 opens the sign-in dialog; the new token makes the open run page live and current again', async () => {
    const first = await start({ token: 'first-token' });
    const port = Number(new URL(first.url).port);
    const id = await waitingRun(first);
    browser = await launchBrowser();
    const page = await browser.open(first, `/runs/${id}`);
    await page.locator('#cancel-button').waitFor();
    await expect.poll(() => connectionState(page)).toBe('live');

    // The server comes back with another token: the page's reconnection is refused.
    await first.close();
    const second = await start({ port, runsDir: first.runsDir, token: 'second-token' });
    await page.locator('#token-dialog[open]').waitFor();
    expect(await page.locator('#token-error').textContent()).toContain('did not accept that token');
    await checkBothWidths(page, 'live-connection-sign-in');

    await page.fill('#token-input', 'second-token');
    await page.click('#token-submit');
    await expect.poll(() => page.locator('#token-dialog').getAttribute('open')).toBeNull();
    await expect.poll(() => connectionState(page)).toBe('live');
    await expect.poll(() => page.locator('#run-state').textContent()).toBe('cancelled');

    // The page follows the run with the new token: resumed through the API (another client), it streams again, and
    // the gate it comes back to takes an answer from the page.
    expect((await second.call(`/pipelines/${id}/resume`, { method: 'POST' })).status).toBe(200);
    await page.locator('#gate-panel button[data-answer="A"]').waitFor();
    await expect.poll(() => page.locator('#run-state').textContent()).toBe('waiting');
    await page.locator('#cancel-button').waitFor();
    await page.keyboard.press('a');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    expect(await second.json<RunDetails>(`/pipelines/${id}`)).toMatchObject({ state: 'success' });
    expect(browser.pageErrors).toEqual([]);
  });
});
