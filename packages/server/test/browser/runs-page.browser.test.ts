/**
 * The runs page in Chromium: filters, search and sort kept in the URL (reload and back/forward restore them),
 * sortable column headers (`aria-sort`, keyboard), and the markers of forked, resumed and partly failed runs.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readFixture, type TestServer, waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';
import { type PastRun, readRunSeed, writePastRun } from './past-run.js';

const resources = closeAfterEach();

/** Waits until run `id` ended with `state`. */
async function waitForState(server: TestServer, id: string, state: string): Promise<void> {
  await waitFor(
    async () => (await server.json<{ state: string }>(`/pipelines/${id}`)).state === state,
    `run ${id}`,
  );
}

/**
 * A server (`allowTools`) with one real run (`seed`, today) and `runs` written as past run directories from its
 * files.
 */
async function serverWithRuns(runs: readonly PastRun[]): Promise<{ server: TestServer; seedId: string }> {
  const server = await resources.startServer({ allowTools: true });
  const seedId = await server.startRun(
    'digraph seed { goal="Seed run"; start [shape=Mdiamond]; work [prompt="x"]; done [shape=Msquare]; start -> work -> done }',
  );
  await waitForState(server, seedId, 'success');
  const seed = await readRunSeed(join(server.runsDir, seedId));
  for (const run of runs) await writePastRun(server.runsDir, seed, run);
  return { server, seedId };
}

/** The run ids of the table's rows, top to bottom. */
function rowIds(page: Page): Promise<string[]> {
  return page
    .locator('#run-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run') ?? ''));
}

const usage = (costUsd: number) => ({
  type: 'agent.usage',
  nodeId: 'work',
  inputTokens: 100,
  outputTokens: 10,
  costUsd,
});

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second));

describe('web UI: runs page (issue 31 "Web UI, second round")', () => {
  it('keeps filters, search and sort in the URL, restored on reload and back/forward', async () => {
    const { server } = await serverWithRuns([
      {
        name: 'r1',
        graph: 'alpha',
        goal: 'Build the parser',
        startedAt: at(1),
        durationMs: 5000,
        events: [usage(0.5)],
      },
      {
        name: 'r2',
        graph: 'beta',
        goal: 'Deploy the service',
        startedAt: at(2),
        durationMs: 1000,
        state: 'fail',
        events: [usage(2)],
      },
      {
        name: 'r3',
        graph: 'alpha',
        goal: 'Fix the timeout',
        startedAt: at(3),
        durationMs: 3000,
        state: 'fail',
        events: [usage(0.1)],
      },
      { name: 'r4', graph: 'beta', goal: 'Write the docs', startedAt: at(4), durationMs: 9000 },
    ]);
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/?status=fail&graph=alpha&q=timeout');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('1 of 5 runs');
    expect(await rowIds(page)).toEqual(['r3']);
    expect(await page.inputValue('#filter-state')).toBe('fail');
    expect(await page.inputValue('#filter-graph')).toBe('alpha');
    expect(await page.inputValue('#filter-search')).toBe('timeout');

    // Typing replaces the history entry; a select adds one.
    await page.fill('#filter-search', '');
    await page.waitForURL(`${server.url}/?status=fail&graph=alpha`);
    await page.selectOption('#filter-graph', '');
    await page.waitForURL(`${server.url}/?status=fail`);
    await expect.poll(() => rowIds(page)).toEqual(['r3', 'r2']);
    await page.goBack();
    await page.waitForURL(`${server.url}/?status=fail&graph=alpha`);
    await expect.poll(() => rowIds(page)).toEqual(['r3']);
    expect(await page.inputValue('#filter-graph')).toBe('alpha');
    await page.goForward();
    await page.waitForURL(`${server.url}/?status=fail`);
    await expect.poll(() => rowIds(page)).toEqual(['r3', 'r2']);

    // Sorting by cost from the keyboard: most expensive first, then the other way round.
    const cost = page.locator('#run-table th[data-sort="cost"]');
    expect(await page.locator('#run-table th[data-sort="start"]').getAttribute('aria-sort')).toBe(
      'descending',
    );
    expect(await cost.getAttribute('aria-sort')).toBe('none');
    await cost.locator('button').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/?status=fail&sort=cost&dir=desc`);
    expect(await cost.getAttribute('aria-sort')).toBe('descending');
    expect(await page.locator('#run-table th[data-sort="start"]').getAttribute('aria-sort')).toBe('none');
    await expect.poll(() => rowIds(page)).toEqual(['r2', 'r3']);
    await page.keyboard.press('Space');
    await page.waitForURL(`${server.url}/?status=fail&sort=cost&dir=asc`);
    await expect.poll(() => rowIds(page)).toEqual(['r3', 'r2']);

    await page.reload();
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('2 of 5 runs');
    expect(await rowIds(page)).toEqual(['r3', 'r2']);
    expect(await cost.getAttribute('aria-sort')).toBe('ascending');

    // Longest first over every run; the seed run took milliseconds.
    await page.selectOption('#filter-state', '');
    await page.click('#run-table th[data-sort="duration"] button');
    await page.waitForURL(`${server.url}/?sort=duration&dir=desc`);
    await expect.poll(async () => (await rowIds(page)).slice(0, 4)).toEqual(['r4', 'r1', 'r3', 'r2']);
    await page.click('#run-table th[data-sort="graph"] button');
    await expect.poll(async () => (await rowIds(page)).slice(0, 4)).toEqual(['r1', 'r3', 'r2', 'r4']);

    await screenshot(page, 'runs-sorted');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);

  it('marks forked, resumed and partly failed runs', async () => {
    const resume = {
      type: 'pipeline.started',
      name: 'alpha',
      goal: 'Resumed run',
      logsRoot: 'resumed-twice',
      resumed: true,
      startNodeId: 'work',
    };
    const { server, seedId } = await serverWithRuns([
      {
        name: 'resumed-twice',
        graph: 'alpha',
        goal: 'Resumed run',
        startedAt: at(1),
        durationMs: 1000,
        events: [
          { type: 'pipeline.cancelled', reason: 'stopped', durationMs: 400 },
          resume,
          { type: 'pipeline.failed', error: 'broke', durationMs: 100 },
          resume,
        ],
      },
      {
        name: 'items-failed',
        graph: 'beta',
        goal: 'Loop over items',
        startedAt: at(2),
        durationMs: 1000,
        events: [
          {
            type: 'foreach.completed',
            nodeId: 'each',
            durationMs: 10,
            successCount: 1,
            failureCount: 2,
            notStartedCount: 0,
          },
        ],
      },
      {
        name: 'failed-anyway',
        graph: 'beta',
        goal: 'Failed run',
        startedAt: at(3),
        durationMs: 1000,
        state: 'fail',
        events: [
          { type: 'parallel.completed', nodeId: 'fan', durationMs: 10, successCount: 0, failureCount: 2 },
        ],
      },
    ]);
    // A real parallel block whose branch b1 fails while the run succeeds, and a real fork of the seed run.
    const parallel = await server.startRun(await readFixture('parallel-failing-branch.dot'));
    await waitForState(server, parallel, 'success');
    const forked = await server.call(`/pipelines/${seedId}/fork`, { method: 'POST', json: { from: 'work' } });
    const forkId = ((await forked.json()) as { id: string }).id;
    await waitForState(server, forkId, 'success');

    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/');
    await expect.poll(() => page.locator('#run-count').textContent()).toBe('6 runs');
    const row = (id: string) => page.locator(`#run-table tr[data-run="${id}"]`);
    expect(await row(parallel).locator('.partial-failure').textContent()).toBe('1 branch failed');
    expect(await row('items-failed').locator('.partial-failure').textContent()).toBe('2 items failed');
    // A failed run says why it failed; its failed branches are no surprise.
    expect(await row('failed-anyway').locator('.partial-failure').count()).toBe(0);
    expect(await row(seedId).locator('.partial-failure, .marker').count()).toBe(0);
    expect(await row('resumed-twice').locator('[data-marker="resumed"]').textContent()).toBe(
      'resumed 2 times',
    );

    const fork = row(forkId).locator('[data-marker="fork"]');
    expect(await fork.textContent()).toBe(`forked from ${seedId} after work`);
    expect(await row(forkId).locator('[data-marker="resumed"]').count()).toBe(0);
    await fork.locator('a').click();
    await page.waitForURL(`${server.url}/runs/${encodeURIComponent(seedId)}?stage=work`);

    await page.goBack();
    await page.locator('#run-table [data-marker="fork"]').waitFor();
    await screenshot(page, 'runs-markers');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);

  it("shows a waiting run's question on its row, answerable there, and drops it once answered", async () => {
    const server = await resources.startServer();
    const id = await server.startRun(
      'digraph ship { start [shape=Mdiamond]; gate [shape=hexagon, label="Ship the release?"]; rework [prompt="Rework it"]; done [shape=Msquare]; start -> gate; gate -> done [label="[Y] Yes"]; gate -> rework [label="[N] No"]; rework -> done }',
    );
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/');
    const row = page.locator(`#run-table tr[data-run="${id}"]`);
    await row.locator('[data-state="waiting"]').first().waitFor();
    const question = row.locator('.waiting-question');
    await expect.poll(() => question.textContent()).toContain('gate asks: Ship the release?');
    const answers = question.locator('button[data-answer]');
    expect(await answers.evaluateAll((buttons) => buttons.map((button) => button.textContent))).toEqual([
      'Y Yes',
      'N No',
    ]);
    expect(await answers.nth(1).getAttribute('aria-label')).toBe('N No, answer to gate');
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'runs-row-question');

    // Answered from the row: the run takes the No edge.
    await answers.nth(1).click();
    await row.locator('[data-state="success"]').first().waitFor();
    expect(await question.count()).toBe(0);
    const details = await server.json<{ completedNodes: string[] }>(`/pipelines/${id}`);
    expect(details.completedNodes).toEqual(['start', 'gate', 'rework', 'done']);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);
});
