/**
 * Closing and confirming on the run page in Chromium (issue "Web UI, second round"): Escape closes the stage pane
 * (focus goes back to its node in the graph), and Cancel asks first in an accessible dialog that Escape dismisses.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';
import { chainPipeline } from './chain-pipeline.js';

const resources = closeAfterEach();

describe('web UI: Escape and confirmation (issue "Web UI, second round")', () => {
  it('closes the stage pane with Escape, and cancels a run only once the dialog is confirmed', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const id = await server.startRun(chainPipeline(5));
    await waitFor(
      async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=start`);
    await page.locator('#stage-pane[data-node="start"]').waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL((url) => !url.search.includes('stage='));
    expect(await page.locator('#stage-pane').count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('node-start');

    // Cancel asks first; Escape (then "Keep running") dismisses the question and the run keeps waiting.
    await page.locator('#stage-pane').waitFor({ state: 'detached' });
    await page.click('#graph g#node-go');
    await page.locator('#stage-pane[data-node="go"]').waitFor();
    // The waiting gate and its stage pane pass axe in the dark theme too.
    await page.locator('#gate-panel button[data-answer="G"]').waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('html[data-theme="dark"]').waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'gate-dark', { fullPage: false });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.click('#cancel-button');
    const dialog = page.locator('#cancel-dialog');
    await dialog.locator('#cancel-dialog-title').waitFor();
    expect(await dialog.getAttribute('open').then((open) => open !== null)).toBe(true);
    expect(await dialog.getAttribute('aria-labelledby')).toBe('cancel-dialog-title');
    expect(await page.evaluate('document.activeElement?.id')).toBe('cancel-dialog-dismiss');
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'cancel-confirm', { fullPage: false });
    // The gate's key does not answer the gate while the dialog is open; Escape is the dialog's: it closes, the stage
    // pane stays.
    await page.keyboard.press('g');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.getAttribute('open').then((open) => open !== null)).toBe(false);
    expect(await page.locator('#stage-pane').count()).toBe(1);
    await page.click('#cancel-button');
    await page.click('#cancel-dialog-dismiss');
    await expect.poll(() => dialog.getAttribute('open').then((open) => open !== null)).toBe(false);
    expect((await server.json<{ state: string }>(`/pipelines/${id}`)).state).toBe('waiting');

    await page.click('#cancel-button');
    await page.click('#cancel-dialog-confirm');
    await page.locator('#run-state[data-state="cancelled"]').waitFor();
    expect(browser.pageErrors).toEqual([]);
  });

  it('deletes a run that ended once the dialog is confirmed; an open runs list drops its row live', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const kept = await server.startRun(chainPipeline(5));
    const id = await server.startRun(chainPipeline(6));
    for (const run of [kept, id]) {
      await waitFor(
        async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${run}/questions`)).questions[0],
        'the gate',
      );
      await server.call(`/pipelines/${run}/cancel`, { method: 'POST' });
    }
    const list = await browser.open(server, '/');
    await list.locator(`#run-table tr[data-run="${id}"]`).waitFor();
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#run-state[data-state="cancelled"]').waitFor();

    // Asked first: dismissed, nothing goes.
    await page.click('#delete-button');
    const dialog = page.locator('#delete-dialog');
    await dialog.locator('#delete-dialog-title').waitFor();
    expect(await page.evaluate('document.activeElement?.id')).toBe('delete-dialog-dismiss');
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'delete-confirm', { fullPage: false });
    await page.click('#delete-dialog-dismiss');
    await expect.poll(() => dialog.getAttribute('open').then((open) => open !== null)).toBe(false);
    expect((await server.call(`/pipelines/${id}`)).status).toBe(200);

    // Confirmed: the run goes, the page goes back to the list, and the other open list drops the row.
    await page.click('#delete-button');
    await page.click('#delete-dialog-confirm');
    await page.waitForURL((url) => url.pathname === '/');
    await page.locator(`#run-table tr[data-run="${kept}"]`).waitFor();
    expect(await page.locator(`#run-table tr[data-run="${id}"]`).count()).toBe(0);
    await list.locator(`#run-table tr[data-run="${id}"]`).waitFor({ state: 'detached' });
    expect((await server.call(`/pipelines/${id}`)).status).toBe(404);
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
