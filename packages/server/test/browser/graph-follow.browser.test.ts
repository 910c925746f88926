/**
 * The run page's graph pane follows the current node of a live run in Chromium: a 40-node chain drawn top to bottom
 * is taller than the pane; the pane scrolls to a gate deep in the chain, stops following once the user scrolls it
 * with the wheel, and follows again after "Follow the running stage".
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

/** start, s1–s14, gate g1, s15–s28, gate g2, s29–s36, done: 40 nodes in one chain. */
function chainWithGates(): string {
  const stages = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, index) => `s${from + index}`);
  const first = stages(1, 14);
  const second = stages(15, 28);
  const third = stages(29, 36);
  return [
    'digraph follow {',
    '  start [shape=Mdiamond]',
    '  done [shape=Msquare]',
    '  g1 [shape=hexagon, label="First gate"]',
    '  g2 [shape=hexagon, label="Second gate"]',
    ...[...first, ...second, ...third].map((id) => `  ${id} [prompt="Work on ${id}"]`),
    `  start -> ${first.join(' -> ')} -> g1`,
    `  g1 -> ${second[0]} [label="[C] Continue"]`,
    `  ${second.join(' -> ')} -> g2`,
    `  g2 -> ${third[0]} [label="[C] Continue"]`,
    `  ${third.join(' -> ')} -> done`,
    '}',
  ].join('\n');
}

/** The graph pane's scroll offset and whether node `nodeId` lies wholly inside the pane's visible area. */
function paneView(page: Page, nodeId: string) {
  return page.evaluate<{
    scrollTop: number;
    scrollHeight: number;
    clientHeight: number;
    inView: boolean;
  }>(`(() => {
    const pane = document.getElementById('graph');
    const view = pane.getBoundingClientRect();
    const box = document.getElementById(${JSON.stringify(`node-${nodeId}`)}).getBoundingClientRect();
    const top = view.top + pane.clientTop;
    const left = view.left + pane.clientLeft;
    return {
      scrollTop: pane.scrollTop,
      scrollHeight: pane.scrollHeight,
      clientHeight: pane.clientHeight,
      inView: box.top >= top && box.bottom <= top + pane.clientHeight && box.left >= left && box.right <= left + pane.clientWidth,
    };
  })()`);
}

describe('web UI: the graph pane follows the running stage', () => {
  it('scrolls to the waiting gate, stops following when the user scrolls, and follows again on request', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const id = await server.startRun(chainWithGates());
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#graph[data-loaded] g#node-g1.status-waiting').waitFor();

    // The chain is far taller than the pane, and the pane scrolled down to the first gate (final position, not
    // the smooth scroll's frames).
    const opened = await paneView(page, 'g1');
    expect(opened.scrollHeight).toBeGreaterThan(3 * opened.clientHeight);
    await expect.poll(async () => (await paneView(page, 'g1')).inView).toBe(true);
    expect((await paneView(page, 'g1')).scrollTop).toBeGreaterThan(0);
    expect(await page.locator('#follow-button').count()).toBe(0);

    // The user scrolls the pane back to the top with the mouse wheel: the pane stops following.
    // The page scrolls (not the pane) so that the pointer can rest on the pane.
    await page.locator('#graph').scrollIntoViewIfNeeded();
    const pane = await page.locator('#graph').boundingBox();
    await page.mouse.move(pane!.x + pane!.width / 2, pane!.y + Math.min(pane!.height, 300) / 2);
    await page.mouse.wheel(0, -20_000);
    await expect.poll(async () => (await paneView(page, 'g1')).scrollTop).toBe(0);
    const follow = page.getByRole('button', { name: 'Follow the running stage' });
    await follow.waitFor();
    expect((await paneView(page, 'g1')).inView).toBe(false);

    // The run moves on to the second gate, further down: the pane stays where the user left it.
    await page.locator('#gate-panel button[data-answer="C"]').click();
    await page.locator('#graph g#node-g2.status-waiting').waitFor();
    await page.locator('#graph g#node-g1.status-success').waitFor();
    // Give a (wrong) smooth scroll time to move the pane before checking that it did not.
    await page.waitForTimeout(500);
    expect(await paneView(page, 'g2')).toMatchObject({ scrollTop: 0, inView: false });
    await screenshot(page, 'graph-not-following', { fullPage: false });
    expect(await checkAccessibility(page)).toEqual([]);

    // "Follow the running stage" brings the second gate into view and the control goes away.
    await follow.click();
    await expect.poll(async () => (await paneView(page, 'g2')).inView).toBe(true);
    expect(await follow.count()).toBe(0);

    // Selecting a node still opens its stage pane; the run ends with the answer and nothing follows any more.
    await page.click('#graph g#node-g2');
    await page.waitForURL(/\?stage=g2$/);
    await page.locator('#stage-pane').waitFor();
    await page.locator('#gate-panel button[data-answer="C"]').click();
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    expect(await follow.count()).toBe(0);
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
