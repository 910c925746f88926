/**
 * A `foreach` node's items on the run page in Chromium (issue "Typed data flow"): a foreach over 6 items with a tool
 * body (`sh -c`, failing for one item, `on_item_error=collect`) shows each item's value, status, duration and failure
 * live, the counts, and the node's progress on the graph; an item's link opens its stages; after a cancel and a
 * resume the items finished before show as kept; a reload (a replay of the finished run) shows the same list.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

const FILES = ['a.txt', 'b.txt', 'c.txt', 'd.txt', { name: 'e.txt' }, 'f.txt'];

/** Fails for `c.txt`; for `f.txt` waits until its stage directory holds `go`; prints what it checked. */
const COMMAND =
  `sh -c 'case "$item.file" in ` +
  `c.txt) echo "c.txt is broken" >&2; exit 3;; ` +
  `f.txt) while [ ! -f "$ATTRACTOR_STAGE_DIR/go" ]; do sleep 0.05; done;; ` +
  `esac; echo "checked $item.file"'`;

const PIPELINE = [
  'digraph items {',
  '  start [shape=Mdiamond]',
  '  each [type="foreach", over="files", as="file", max_parallel=6, on_item_error=collect]',
  `  check [shape=parallelogram, tool_command=${JSON.stringify(COMMAND)}]`,
  '  join [shape=tripleoctagon]',
  '  done [shape=Msquare]',
  '  start -> each -> check -> join -> done',
  '}',
].join('\n');

/** Each item's row as `index value status`, read at once. */
function rows(page: Page) {
  return page.locator('#items-each tbody tr').evaluateAll((found) =>
    found.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '');
      return `${cells[0]} ${cells[1]} ${row.getAttribute('data-status')}`;
    }),
  );
}

describe('web UI: the items of a foreach node', () => {
  it('shows each item live, after a resume and in a replay, and opens an item stages', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(PIPELINE, { context: { files: FILES } });
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=each`);

    // Live: five items ended (one failed), f.txt still runs.
    const counts = page.locator('#items-each .items-counts');
    await expect.poll(() => counts.textContent()).toBe('5 of 6 done, 1 failed');
    expect(await rows(page)).toEqual([
      '0 a.txt success',
      '1 b.txt success',
      '2 c.txt fail',
      '3 d.txt success',
      '4 {"name":"e.txt"} success',
      '5 f.txt running',
    ]);
    expect(await page.locator('#items-each tr[data-item="2"] .item-failure').textContent()).toContain(
      'code 3',
    );
    expect(await page.locator('#items-each tr[data-item="0"] .item-duration').textContent()).toMatch(
      /^[0-9.]+ (ms|s)$/,
    );
    const badge = page.locator('#graph text.node-progress[data-node="each"]');
    await expect.poll(() => badge.textContent()).toBe('5/6');
    expect(await page.locator('#graph g#node-each').getAttribute('aria-label')).toContain(
      '5 of 6 items done',
    );
    expect(await checkAccessibility(page)).toEqual([]);

    // Cancelled while f.txt runs, then resumed: the five items are kept, f.txt runs again and ends.
    await page.click('#cancel-button');
    await page.click('#cancel-dialog-confirm');
    await page.locator('#run-state[data-state="cancelled"]').waitFor();
    await expect
      .poll(() => page.locator('#items-each tr[data-item="5"]').getAttribute('data-status'))
      .toBe('cancelled');
    await writeFile(join(server.runsDir, id, 'each', 'items', '5', 'check', 'go'), '');
    await page.click('#resume-button');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await expect.poll(() => counts.textContent()).toBe('6 of 6 done, 1 failed');
    const finished = [
      '0 a.txt success',
      '1 b.txt success',
      '2 c.txt fail',
      '3 d.txt success',
      '4 {"name":"e.txt"} success',
      '5 f.txt success',
    ];
    expect(await rows(page)).toEqual(finished);
    expect(await page.locator('#items-each tr[data-item="0"] .badge').textContent()).toBe('success (kept)');
    expect(await page.locator('#items-each tr[data-item="5"] .badge').textContent()).toBe('success');
    expect(await badge.textContent()).toBe('6/6');
    await screenshot(page, 'foreach-items');

    // A replay of the finished run: the same list; a body node's pane lists the items too.
    await page.goto(`${server.url}/runs/${encodeURIComponent(id)}?stage=check`);
    await expect.poll(() => counts.textContent()).toBe('6 of 6 done, 1 failed');
    expect(await rows(page)).toEqual(finished);
    expect(await page.locator('#items-each tr[data-item="2"] .item-failure').textContent()).toContain(
      'code 3',
    );

    // An item's link (keyboard) opens its stages: item 1's check stage with its output.
    await page.locator('#items-each tr[data-item="1"] a').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/branch=items%2F1/);
    // The foreach node is named once the replayed events reach the page.
    await expect.poll(() => page.locator('#branch-scope').textContent()).toContain('Item 1 of each');
    const pane = page.locator('#stage-pane');
    await expect.poll(() => pane.locator('.stage-files').getAttribute('data-dir')).toBe('each/items/1/check');
    await expect
      .poll(() => pane.locator('.stage-file[data-file="stdout.txt"] pre').textContent())
      .toBe('checked b.txt\n');
    expect(await pane.locator('.visit').count()).toBe(1);
    expect(await pane.locator('.visit > summary').textContent()).toContain('· item 1');
    expect(await page.locator('.timeline-label').allTextContents()).toEqual(['check (item 1)']);
    expect(await page.locator('#items-each tr[data-item="1"] a').getAttribute('aria-current')).toBe('page');
    // From there, another item's link opens the same body stage of that item.
    await page.click('#items-each tr[data-item="2"] a');
    await expect
      .poll(() => pane.locator('.stage-file[data-file="stderr.txt"] pre').textContent())
      .toBe('c.txt is broken\n');
    expect(await pane.locator('.stage-files').getAttribute('data-dir')).toBe('each/items/2/check');
    expect(await checkAccessibility(page)).toEqual([]);
    // And in the dark theme, once the colour transitions it starts have ended.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await page.evaluate(`(async () => {
      void document.body.offsetHeight;
      await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
    })()`);
    expect(await checkAccessibility(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
