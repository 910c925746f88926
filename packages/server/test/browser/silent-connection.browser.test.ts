/**
 * A connection that dies silently (nothing closed: a proxy or NAT that lost it, a suspended laptop, a vanished host)
 * in Chromium: a TCP proxy between the browser and the server stops forwarding bytes both ways. The server's
 * heartbeats stop reaching the page, which then leaves Live (reconnecting, offline); once the proxy forwards again the
 * page is Live and shows what the API says, including what changed meanwhile. Heartbeats are not events: the
 * indicator's "last event" age keeps growing while only heartbeats come.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails } from '../../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from '../test-server.js';
import { type BrowserSession, launchBrowser, screenshot } from './browser-session.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

let server: TestServer | undefined;
let proxy: TcpProxy | undefined;
let browser: BrowserSession | undefined;
afterEach(async () => {
  await browser?.close();
  await proxy?.close();
  await server?.close();
  browser = undefined;
  proxy = undefined;
  server = undefined;
});

/** Generous: the suite runs beside other work loading both cores; the waits end as soon as the condition holds. */
const CONVERGE_MS = 60_000;

function connectionState(page: Page): Promise<string | null> {
  return page.locator('#connection-status').getAttribute('data-state');
}

describe('web UI: a connection that goes silent without closing', () => {
  it('leaves Live when heartbeats stop, and converges to the API once bytes flow again', async () => {
    // One heartbeat a second: a stream silent for three of them is lost (a loaded machine can stall a page for a moment).
    server = await startTestServer({ heartbeatMs: 1000 });
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitFor(
      async () =>
        (await server!.json<{ questions: PendingQuestion[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the run to wait at its gate',
    );
    proxy = await startTcpProxy(server.url);
    const through = { ...server, url: proxy.url };
    browser = await launchBrowser();
    const runPage = await browser.open(through, `/runs/${id}`);
    const listPage = await browser.open(through, '/');
    await runPage.locator('#cancel-button').waitFor();
    await expect.poll(() => runPage.locator('#run-state').textContent()).toBe('waiting');
    await listPage.locator(`tr[data-run="${id}"][data-state="waiting"]`).waitFor();
    for (const page of [runPage, listPage]) await expect.poll(() => connectionState(page)).toBe('live');

    // At the gate only heartbeats come (one a second): the page stays Live, and its "last event" age grows.
    await expect
      .poll(() => runPage.locator('#connection-age').textContent(), { timeout: CONVERGE_MS })
      .toMatch(/^last event ([3-9]|\d\d+) s ago$/);
    expect(await connectionState(runPage)).toBe('live');

    proxy.freeze();
    for (const page of [runPage, listPage])
      await expect
        .poll(() => connectionState(page), { timeout: CONVERGE_MS })
        .toMatch(/^(reconnecting|offline)$/);
    // Meanwhile the run is cancelled by another client: the pages cannot know yet.
    expect((await server.call(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    const api = await waitFor(async () => {
      const details = await server!.json<RunDetails>(`/pipelines/${id}`);
      return details.live ? undefined : details;
    }, 'the run to end');
    expect(api.state).toBe('cancelled');
    await screenshot(runPage, 'silent-connection-lost-1400');
    expect(await runPage.locator('#run-state').textContent()).toBe('waiting');

    proxy.thaw();
    for (const page of [runPage, listPage])
      await expect.poll(() => connectionState(page), { timeout: CONVERGE_MS }).toBe('live');
    await expect
      .poll(() => runPage.locator('#run-state').textContent(), { timeout: CONVERGE_MS })
      .toBe(api.state);
    await expect
      .poll(() => listPage.locator(`tr[data-run="${id}"]`).getAttribute('data-state'), {
        timeout: CONVERGE_MS,
      })
      .toBe(api.state);
    expect(await runPage.locator('#cancel-button').count()).toBe(0);
    await screenshot(runPage, 'silent-connection-converged-1400');
    expect(browser.pageErrors).toEqual([]);
  });
});
