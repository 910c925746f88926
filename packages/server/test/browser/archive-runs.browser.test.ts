/**
 * Archiving runs in Chromium (issue 31 item 4): Archive on a row takes the run out of the default list, "Show
 * archived" (kept in the URL) brings it back marked, Unarchive on the row and on the run page; axe-clean at 1,400
 * and 390 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type TestServer, waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

const DOT = (name: string) =>
  `digraph ${name} { goal="Archive me"; start [shape=Mdiamond]; work [prompt="x"]; done [shape=Msquare]; start -> work -> done }`;

async function finishedRun(server: TestServer, name: string): Promise<string> {
  const id = await server.startRun(DOT(name));
  await waitFor(
    async () => (await server.json<{ state: string }>(`/pipelines/${id}`)).state === 'success',
    `run ${id}`,
  );
  return id;
}

function rowIds(page: Page): Promise<string[]> {
  return page
    .locator('#run-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run') ?? ''));
}

describe('web UI: archiving runs (issue 31 "Web UI, second round")', () => {
  it('archives from a row (gone from the list), shows it with "Show archived" (URL), unarchives from the row and the run page', async () => {
    const server = await resources.startServer();
    const kept = await finishedRun(server, 'kept');
    const id = await finishedRun(server, 'archived');
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/');
    await expect.poll(() => rowIds(page)).toEqual([id, kept]);

    // From the keyboard: the row's Archive button.
    await page.locator(`#run-table tr[data-run="${id}"] button[data-action="archive"]`).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => rowIds(page)).toEqual([kept]);
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('1 run');
    expect((await server.json<{ archived?: boolean }>(`/pipelines/${id}`)).archived).toBe(true);

    await page.check('#filter-archived');
    await page.waitForURL(`${server.url}/?archived=include`);
    await expect.poll(() => rowIds(page)).toEqual([id, kept]);
    const row = page.locator(`#run-table tr[data-run="${id}"]`);
    expect(await row.locator('[data-marker="archived"]').textContent()).toBe('archived');
    expect(await page.locator(`#run-table tr[data-run="${kept}"] [data-marker="archived"]`).count()).toBe(0);
    await screenshot(page, 'runs-archived-shown');
    expect(await checkAccessibility(page)).toEqual([]);

    // The filter survives a reload; Unarchive on the row takes the mark away.
    await page.reload();
    await expect.poll(() => rowIds(page)).toEqual([id, kept]);
    expect(await page.isChecked('#filter-archived')).toBe(true);
    await row.locator('button[data-action="unarchive"]').click();
    await expect.poll(() => row.locator('[data-marker="archived"]').count()).toBe(0);
    expect(await server.json<Record<string, unknown>>(`/pipelines/${id}`)).not.toHaveProperty('archived');
    await page.uncheck('#filter-archived');
    await page.waitForURL(`${server.url}/`);
    await expect.poll(() => rowIds(page)).toEqual([id, kept]);

    // The run page: Archive (no confirmation), marked, then Unarchive.
    await page.click(`#run-table tr[data-run="${id}"] a.run-link`);
    const button = page.locator('#archive-button');
    await expect.poll(() => button.textContent()).toBe('Archive');
    await button.click();
    await expect.poll(() => button.textContent()).toBe('Unarchive');
    expect(await page.locator('#run-archived').textContent()).toBe('archived');
    expect((await server.json<{ archived?: boolean }>(`/pipelines/${id}`)).archived).toBe(true);
    await button.click();
    await expect.poll(() => button.textContent()).toBe('Archive');
    expect(await page.locator('#run-archived').count()).toBe(0);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);

  it('is axe-clean at 390 px with an archived run shown', async () => {
    const server = await resources.startServer();
    const id = await finishedRun(server, 'narrow');
    expect((await server.call(`/pipelines/${id}/archive`, { method: 'POST' })).status).toBe(200);
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/?archived=include', { width: 390, height: 844 });
    await expect.poll(() => rowIds(page)).toEqual([id]);
    await screenshot(page, 'runs-archived-390');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);
});
