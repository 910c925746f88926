/**
 * The web UI at scale in Chromium: a 500-node pipeline whose every node turns colour with its event, and a runs list
 * of 1,000 runs that loads, filters and searches. How fast is the benchmark's (`pnpm --filter @attractor/server bench`);
 * these tests print what they saw and assert no time.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../test-server.js';
import { closeAfterEach, screenshot } from './browser-session.js';
import { chainPipeline } from './chain-pipeline.js';

const resources = closeAfterEach();

/** Records in the page when each graph node first shows `status-success` (epoch milliseconds). */
const RECORD_SUCCESS_TIMES = `
  window.__successAt = {};
  new MutationObserver((mutations) => {
    const now = performance.timeOrigin + performance.now();
    for (const mutation of mutations) {
      const node = mutation.target;
      if (node.getAttribute && /status-success/.test(node.getAttribute('class') || '') && node.dataset && node.dataset.node && !(node.dataset.node in window.__successAt))
        window.__successAt[node.dataset.node] = now;
    }
  }).observe(document, { attributes: true, attributeFilter: ['class'], subtree: true });
`;

describe('web UI at scale (issue "A web UI people would choose")', () => {
  it('draws a 500-node pipeline and colours each node after its event', async () => {
    // Each LLM stage takes 10 ms, as a (very fast) model call would: the engine then yields to the server's event
    // loop between stages. (The simulation backend answers synchronously, and the engine's synchronous file writes
    // then run hundreds of stages before the server gets to send their events.)
    const server = await resources.startServer({
      backendFactory: () => ({
        run: (request) => new Promise((resolve) => setTimeout(() => resolve(`done ${request.node.id}`), 10)),
      }),
    });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(chainPipeline(500));
    await waitFor(
      async () => (await server.json<{ questions: unknown[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    const page = await browser.context.newPage();
    await page.addInitScript(`sessionStorage.setItem('attractor.token', ${JSON.stringify(server.token)})`);
    await page.addInitScript(RECORD_SUCCESS_TIMES);
    await page.goto(`${server.url}/runs/${encodeURIComponent(id)}`);
    await page.locator('#graph[data-loaded] g#node-go.status-waiting').waitFor();
    expect(await page.locator('#graph g.node').count()).toBe(500);

    // The gate's question arrives on its own request: press its key once its button shows.
    await page.locator('#gate-panel button[data-answer="G"]').waitFor();
    await page.keyboard.press('g');
    await page.locator('#run-state[data-state="success"]').waitFor({ timeout: 120_000 });
    await page.locator('#graph g#node-done.status-success').waitFor();

    const shownAt = await page.evaluate<Record<string, number>>('window.__successAt');
    const events = (await readFile(join(server.runsDir, id, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; nodeId?: string; timestamp: string });
    const lags = events
      .filter(
        (event) => event.type === 'stage.completed' && event.nodeId !== undefined && event.nodeId !== 'start',
      )
      .map((event) => ({
        node: event.nodeId!,
        lagMs: shownAt[event.nodeId!]! - Date.parse(event.timestamp),
      }));
    expect(lags).toHaveLength(499);
    const worst = lags.reduce((a, b) => (b.lagMs > a.lagMs ? b : a));
    expect(lags.every((lag) => Number.isFinite(lag.lagMs))).toBe(true);
    console.info(`500-node run: slowest node update ${Math.round(worst.lagMs)} ms after its event`);
    await screenshot(page, 'chain-500', { fullPage: false });
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('lists 1,000 runs and filters them by graph, status and text', async () => {
    const server = await resources.startServer();
    const id = await server.startRun(
      'digraph alpha { goal="Seed run"; start [shape=Mdiamond]; work [prompt="x"]; done [shape=Msquare]; start -> work -> done }',
    );
    await waitFor(
      async () => (await server.json<{ state: string }>(`/pipelines/${id}`)).state === 'success',
      'the seed run',
    );
    // 999 more run directories: the seed's manifest and checkpoint with their own names, graphs, goals and times,
    // and an event log of a start and an end (only the files the list reads, to keep the test light).
    const seed = join(server.runsDir, id);
    const manifest = JSON.parse(await readFile(join(seed, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const checkpoint = await readFile(join(seed, 'checkpoint.json'), 'utf8');
    const copies = Array.from({ length: 999 }, (_, offset) => offset + 1);
    for (let first = 0; first < copies.length; first += 50) {
      await Promise.all(
        copies.slice(first, first + 50).map(async (index) => {
          const name = `2025-01-01T00-00-${String(index).padStart(4, '0')}Z-copy`;
          const startedAt = new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString();
          const endedAt = new Date(Date.UTC(2025, 0, 1, 0, 0, index, 250 + index)).toISOString();
          const graph = index % 2 === 0 ? 'alpha' : 'beta';
          await mkdir(join(server.runsDir, name));
          await writeFile(
            join(server.runsDir, name, 'manifest.json'),
            JSON.stringify({
              ...manifest,
              graph_name: graph,
              goal: `Goal number ${index}`,
              started_at: startedAt,
            }),
          );
          await writeFile(join(server.runsDir, name, 'checkpoint.json'), checkpoint);
          const events = [
            {
              type: 'pipeline.started',
              name: graph,
              goal: `Goal number ${index}`,
              logsRoot: name,
              resumed: false,
              startNodeId: 'start',
              seq: 1,
              timestamp: startedAt,
              runId: name,
            },
            {
              type: 'pipeline.completed',
              durationMs: 250 + index,
              artifactCount: 0,
              completedCount: 3,
              seq: 2,
              timestamp: endedAt,
              runId: name,
            },
          ];
          await writeFile(
            join(server.runsDir, name, 'events.jsonl'),
            events.map((event) => `${JSON.stringify(event)}\n`).join(''),
          );
        }),
      );
    }
    const browser = await resources.launchBrowser();
    const started = Date.now();
    const page = await browser.open(server, '/');
    await expect.poll(() => page.locator('#run-count').textContent(), { timeout: 90_000 }).toBe('1000 runs');
    console.info(`runs list: 1,000 runs shown ${Date.now() - started} ms after opening the page`);

    await page.selectOption('#filter-graph', 'beta');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('500 of 1000 runs');
    await page.selectOption('#filter-graph', '');
    await page.fill('#filter-search', 'goal number 123');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('1 of 1000 runs');
    expect(await page.locator('#run-table tbody tr').count()).toBe(1);
    await page.fill('#filter-search', '');
    await page.selectOption('#filter-state', 'fail');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('0 of 1000 runs');
    await page.selectOption('#filter-state', 'success');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('1000 runs');
    // A run of another year shows its year.
    expect(await page.locator('#run-table tbody tr').nth(1).textContent()).toContain('2025');
    await screenshot(page, 'runs-1000', { fullPage: false });
    expect(browser.pageErrors).toEqual([]);
  }, 240_000);
});
