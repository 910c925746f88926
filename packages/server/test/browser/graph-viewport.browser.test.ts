/**
 * The run page's graph viewport in Chromium: zoom (ctrl + wheel around the pointer, buttons around the centre,
 * keys), drag to pan, "Fit", the direction toggle, "n of N stages done", and on a 300-node live run the pane no
 * taller than the window, the overview (minimap) that moves the view, and the running node kept in view while
 * following at another zoom.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';
import { chainPipeline } from './chain-pipeline.js';

const resources = closeAfterEach();

/** A chain of `count` LLM stages between start and done, without a gate. */
function plainChain(count: number): string {
  const stages = Array.from({ length: count }, (_, index) => `s${index + 1}`);
  return [
    'digraph plain {',
    '  start [shape=Mdiamond]',
    '  done [shape=Msquare]',
    ...stages.map((id) => `  ${id} [prompt="Work on ${id}"]`),
    `  start -> ${stages.join(' -> ')} -> done`,
    '}',
  ].join('\n');
}

/** Client rectangles of the pane's visible area, of the SVG, and of node `nodeId` (when given). */
function geometry(page: Page, nodeId?: string) {
  return page.evaluate<{
    pane: { left: number; top: number; right: number; bottom: number };
    svg: { left: number; top: number; width: number; height: number };
    node?: { left: number; top: number; right: number; bottom: number; x: number; y: number };
    scrollTop: number;
    zoom: number;
  }>(`(() => {
    const pane = document.getElementById('graph');
    const view = pane.getBoundingClientRect();
    const left = view.left + pane.clientLeft;
    const top = view.top + pane.clientTop;
    const svg = pane.querySelector('svg').getBoundingClientRect();
    const id = ${JSON.stringify(nodeId ?? null)};
    const box = id === null ? undefined : document.getElementById('node-' + id).getBoundingClientRect();
    return {
      pane: { left, top, right: left + pane.clientWidth, bottom: top + pane.clientHeight },
      svg: { left: svg.left, top: svg.top, width: svg.width, height: svg.height },
      node: box && { left: box.left, top: box.top, right: box.right, bottom: box.bottom, x: box.left + box.width / 2, y: box.top + box.height / 2 },
      scrollTop: pane.scrollTop,
      zoom: Number(pane.dataset.zoom),
    };
  })()`);
}

/** Whether node `nodeId` lies wholly inside the pane's visible area. */
async function inView(page: Page, nodeId: string): Promise<boolean> {
  const { pane, node } = await geometry(page, nodeId);
  return (
    node!.left >= pane.left - 0.5 &&
    node!.right <= pane.right + 0.5 &&
    node!.top >= pane.top - 0.5 &&
    node!.bottom <= pane.bottom + 0.5
  );
}

describe('web UI: the graph viewport', () => {
  it('zooms around the pointer and the centre, pans by dragging, fits, and turns the drawing left to right', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const id = await server.startRun(plainChain(60));
    await waitFor(
      async () => (await server.json<{ state: string }>(`/pipelines/${id}`)).state === 'success',
      'the run',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#graph[data-loaded] g#node-done.status-success').waitFor();
    await expect.poll(() => page.locator('#graph-progress').textContent()).toBe('62 of 62 stages done');
    const legend = await page.locator('.legend li').allTextContents();
    expect(legend).toContain('cancelled');

    // Opened at actual size (the chain is narrower than the pane), taller than the pane, which stays in the window.
    const opened = await geometry(page, 's30');
    expect(opened.zoom).toBe(1);
    expect(opened.svg.height).toBeGreaterThan(2 * (opened.pane.bottom - opened.pane.top));
    expect(opened.pane.bottom - opened.pane.top).toBeLessThanOrEqual(900);

    // Bring s30 into the pane, then ctrl + wheel over it: the drawing grows and s30 stays under the pointer.
    await page.evaluate(`document.getElementById('node-s30').scrollIntoView({ block: 'center' })`);
    const before = await geometry(page, 's30');
    await page.mouse.move(before.node!.x, before.node!.y);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    await expect.poll(async () => (await geometry(page)).zoom).toBeGreaterThan(1.5);
    const zoomed = await geometry(page, 's30');
    expect(zoomed.svg.height).toBeGreaterThan(1.5 * before.svg.height);
    expect(Math.abs(zoomed.node!.x - before.node!.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(zoomed.node!.y - before.node!.y)).toBeLessThanOrEqual(2);
    await screenshot(page, 'graph-zoomed', { fullPage: false });

    // "Zoom out" shrinks it around the pane's centre: the drawing's point at the centre stays there.
    const centreOf = (g: Awaited<ReturnType<typeof geometry>>) =>
      ((g.pane.top + g.pane.bottom) / 2 - g.svg.top) / g.svg.height;
    const beforeOut = await geometry(page);
    await page.click('#zoom-out');
    await expect.poll(async () => (await geometry(page)).zoom).toBeLessThan(beforeOut.zoom);
    const out = await geometry(page);
    expect(out.svg.height).toBeLessThan(beforeOut.svg.height);
    expect(Math.abs(centreOf(out) - centreOf(beforeOut))).toBeLessThan(0.005);

    // The + and - keys zoom too.
    await page.focus('#graph g#node-s30');
    await page.keyboard.press('+');
    await expect.poll(async () => (await geometry(page)).zoom).toBeCloseTo(out.zoom * 1.25, 3);
    await page.keyboard.press('-');
    await expect.poll(async () => (await geometry(page)).zoom).toBeCloseTo(out.zoom, 3);

    // Two fingers spreading apart on a touch screen zoom in around their midpoint (touch events through CDP).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 });
    const pinchAt = (await geometry(page, 's30')).node!;
    const fingers = (spread: number) => [
      { x: pinchAt.x, y: pinchAt.y - spread / 2, id: 0 },
      { x: pinchAt.x, y: pinchAt.y + spread / 2, id: 1 },
    ];
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: fingers(40) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(60) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: fingers(80) });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await expect.poll(async () => (await geometry(page)).zoom).toBeCloseTo(out.zoom * 2, 3);
    const pinched = (await geometry(page, 's30')).node!;
    expect(Math.abs(pinched.y - pinchAt.y)).toBeLessThanOrEqual(2);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await page.click('#zoom-out');
    await page.click('#zoom-out');
    await page.click('#zoom-out');

    // Dragging the drawing (from a node) pans it; the press that dragged does not open the node's stage.
    const dragFrom = await geometry(page, 's30');
    await page.mouse.move(dragFrom.node!.x, dragFrom.node!.y);
    await page.mouse.down();
    await page.mouse.move(dragFrom.node!.x, dragFrom.node!.y - 60, { steps: 4 });
    await page.mouse.move(dragFrom.node!.x, dragFrom.node!.y - 150, { steps: 4 });
    await page.mouse.up();
    const dragged = await geometry(page);
    expect(dragged.scrollTop - dragFrom.scrollTop).toBeCloseTo(150, -1);
    expect(page.url()).not.toContain('stage=');

    // Fit (the 0 key, or the button): a chain of 62 fits whole only below the readable zoom, so it stops there, shows
    // the chain from its start, and points to "Left to right".
    await page.click('#zoom-fit');
    await expect.poll(async () => (await geometry(page)).zoom).toBe(0.4);
    expect(await inView(page, 'start')).toBe(true);
    expect(await page.locator('#graph-fit-note').textContent()).toContain('"Left to right"');
    await screenshot(page, 'graph-fit', { fullPage: false });
    // Another zoom takes the note away.
    await page.click('#zoom-actual');
    await expect(page.locator('#graph-fit-note').count()).resolves.toBe(0);

    // Left to right: the server draws the chain across (wider than tall).
    await page.click('#direction-button');
    await page.locator('#graph[data-loaded] svg g.graph.rankdir-LR').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    const across = await geometry(page);
    expect(across.svg.width).toBeGreaterThan(across.svg.height);
    expect(await page.locator('#direction-button').textContent()).toBe('Top to bottom');
    await screenshot(page, 'graph-left-to-right', { fullPage: false });

    expect(await checkAccessibility(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'graph-viewport-390', { fullPage: false });
    await page.click('#direction-button');
    await page.locator('#graph[data-loaded] svg g.graph.rankdir-TB').waitFor();
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('keeps a 300-node live run in the window, with an overview, and follows the running stage at any zoom', async () => {
    // Stages s50, s150 and s250 wait until the test lets them finish; the others take 5 ms.
    const held = new Map<string, () => void>();
    const holds = new Map(
      ['s50', 's150', 's250'].map((node) => [
        node,
        new Promise<void>((resolve) => {
          held.set(node, resolve);
        }),
      ]),
    );
    const server = await resources.startServer({
      backendFactory: () => ({
        run: async (request) => {
          await (holds.get(request.node.id) ?? new Promise((resolve) => setTimeout(resolve, 5)));
          return `done ${request.node.id}`;
        },
      }),
    });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(chainPipeline(300));
    await waitFor(
      async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#graph[data-loaded] g#node-go.status-waiting').waitFor();
    expect(await page.locator('#graph g.node').count()).toBe(300);

    // The pane is no taller than the window, with the gate panel open above it; the gate is in view.
    const windowHeight = await page.evaluate<number>('window.innerHeight');
    const pane = await geometry(page);
    expect(pane.pane.bottom - pane.pane.top).toBeLessThanOrEqual(windowHeight);
    expect(pane.svg.height).toBeGreaterThan(10 * (pane.pane.bottom - pane.pane.top));
    await expect.poll(() => inView(page, 'go')).toBe(true);
    await expect.poll(() => page.locator('#graph-progress').textContent()).toBe('1 of 300 stages done');

    // The overview shows, and pressing its bottom moves the view there (and stops the following).
    const minimap = page.locator('#graph-minimap');
    await minimap.waitFor();
    await page.locator('#graph-minimap .minimap-picture svg').waitFor();
    await page.locator('#graph').scrollIntoViewIfNeeded();
    const box = (await minimap.boundingBox())!;
    const atTop = (await geometry(page)).scrollTop;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height - 2);
    await expect.poll(async () => (await geometry(page)).scrollTop).toBeGreaterThan(atTop + 1_000);
    await expect.poll(() => inView(page, 'done')).toBe(true);
    await screenshot(page, 'chain-300-minimap', { fullPage: false });
    const follow = page.getByRole('button', { name: 'Follow the running stage' });
    await follow.click();
    await expect.poll(() => inView(page, 'go')).toBe(true);

    // Fit would draw the 300 nodes at 2 %: it stops at a readable zoom, around the waiting gate, and names "Left to
    // right".
    await page.click('#zoom-fit');
    await expect.poll(async () => (await geometry(page)).zoom).toBe(0.4);
    await expect.poll(() => inView(page, 'go')).toBe(true);
    const note = await page.locator('#graph-fit-note').textContent();
    expect(note).toContain('around the running stage');
    expect(note).toContain('"Left to right"');
    await screenshot(page, 'chain-300-fit', { fullPage: false });
    await page.click('#zoom-actual');
    await follow.click();

    // The run goes on to s50 (held): the pane follows it.
    await page.locator('#gate-panel button[data-answer="G"]').click();
    await page.locator('#graph g#node-s50.status-running').waitFor();
    await expect.poll(() => inView(page, 's50')).toBe(true);

    // Zooming in stops the following; following again brings s50 into view at that zoom, and then s150.
    await page.click('#zoom-in');
    await page.click('#zoom-in');
    await follow.click();
    await expect.poll(() => inView(page, 's50')).toBe(true);
    const zoom = (await geometry(page)).zoom;
    held.get('s50')!();
    await page.locator('#graph g#node-s150.status-running').waitFor();
    await expect.poll(() => inView(page, 's150')).toBe(true);
    expect((await geometry(page)).zoom).toBe(zoom);

    // Zoomed out below actual size, it follows to s250.
    for (let step = 0; step < 4; step++) await page.click('#zoom-out');
    await follow.click();
    await expect.poll(() => inView(page, 's150')).toBe(true);
    held.get('s150')!();
    await page.locator('#graph g#node-s250.status-running').waitFor();
    await expect.poll(() => inView(page, 's250')).toBe(true);
    await expect
      .poll(async () => Number((await page.locator('#graph-progress').textContent())?.split(' ')[0]))
      .toBeGreaterThanOrEqual(250);
    await screenshot(page, 'chain-300-following', { fullPage: false });

    held.get('s250')!();
    await page.locator('#run-state[data-state="success"]').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.locator('#graph-progress').textContent()).toBe('300 of 300 stages done');
    expect(browser.pageErrors).toEqual([]);
  }, 240_000);
});
