/**
 * The run page in Chromium: a parallel block with a failing branch (every branch stage coloured, the failed
 * branch's stderr readable in its stage pane), and an LLM stage whose text streams in as several deltas (shown
 * before the stage ends, with its tool call, tokens and cost).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodergenBackend } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

describe('web UI: run page (issue "A web UI people would choose")', () => {
  it('colours every stage of a parallel block and shows the failed branch stderr', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(await readFixture('parallel-failing-branch.dot'));
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);

    await page.locator('#run-state[data-state="success"]').waitFor();
    for (const [node, status] of [
      ['fan', 'partial_success'],
      ['a1', 'success'],
      ['a2', 'success'],
      ['b1', 'fail'],
      ['join', 'success'],
      ['report', 'success'],
      ['done', 'success'],
    ]) {
      await page.locator(`#graph g#node-${node}.status-${status}`).waitFor();
    }

    await page.click('#graph g#node-b1');
    await page.waitForURL(/\?stage=b1$/);
    const pane = page.locator('#stage-pane');
    await expect.poll(() => pane.locator('.visit summary').first().textContent()).toContain('branch b1');
    const stderr = pane.locator('.stage-file[data-file="stderr.txt"] pre');
    await expect.poll(() => stderr.textContent()).toBe('b1 broke: missing input\n');
    expect(await pane.locator('.stage-files').getAttribute('data-dir')).toBe('fan/branches/b1/b1');
    expect(await pane.locator('.attempt .fail-text').first().textContent()).toContain('exited with code 3');
    await page.click('#tab-context');
    const results = page.locator('#context-table tr[data-key="parallel.results"]');
    await results.waitFor();
    // parallel.results is a tree, not one raw JSON string.
    expect(await results.locator('.json-node').count()).toBeGreaterThan(1);
    expect(await results.textContent()).not.toContain('\\n');
    await screenshot(page, 'parallel-failing-branch');
    expect(await checkAccessibility(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('shows an LLM stage text while it streams in, with its tool call, tokens and cost', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A backend that writes its answer in several deltas and waits (for the test) before it finishes the stage.
    const streaming: CodergenBackend = {
      async run(request) {
        if (request.node.id !== 'write') return 'ok';
        for (const text of ['The plan: ', 'first read ', 'the code, '])
          request.emit({ type: 'agent.text', text, delta: true });
        request.emit({
          type: 'agent.tool_call.started',
          toolName: 'read_file',
          callId: 'call-1',
          arguments: { path: 'src/index.ts' },
        });
        request.emit({
          type: 'agent.tool_call.completed',
          toolName: 'read_file',
          callId: 'call-1',
          output: 'export {};',
          isError: false,
          durationMs: 12,
        });
        request.emit({ type: 'agent.usage', inputTokens: 1200, outputTokens: 340, costUsd: 0.0123 } as never);
        await released;
        request.emit({ type: 'agent.text', text: 'then change it.', delta: true });
        return 'The plan: first read the code, then change it.';
      },
    };
    const server = await resources.startServer({ backendFactory: () => streaming });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(
      'digraph stream { start [shape=Mdiamond]; write [prompt="Plan the change"]; done [shape=Msquare]; start -> write -> done }',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=write`);

    const text = page.locator('#stage-pane .attempt .live-text');
    await expect.poll(() => text.textContent()).toBe('The plan: first read the code, ');
    // The stage is still running: the partial text is shown before it ends.
    await page.locator('#graph g#node-write.status-running').waitFor();
    expect(await page.locator('#stage-pane .attempt').getAttribute('data-status')).toBe('running');
    expect(await page.locator('#stage-pane .tool-call > summary code').textContent()).toBe('read_file');
    // The call's arguments and result open from its summary.
    await page.click('#stage-pane .tool-call > summary');
    expect(await page.locator('#stage-pane .tool-call .json-key').first().textContent()).toBe('path');
    expect(await page.locator('#stage-pane .tool-call .json-string').first().textContent()).toContain(
      'src/index.ts',
    );
    expect(await page.locator('#stage-pane .tool-call pre').textContent()).toBe('export {};');
    expect(await page.locator('#stage-pane .tool-call > summary').textContent()).toContain('done in 12 ms');
    const facts = page.locator('#stage-pane .attempt .facts');
    expect(await facts.textContent()).toContain('1,200 in / 340 out');
    expect(await facts.textContent()).toContain('$0.0123');
    expect(await facts.textContent()).toContain('running…');
    await screenshot(page, 'llm-streaming');

    release();
    await page.locator('#run-state[data-state="success"]').waitFor();
    await expect.poll(() => text.textContent()).toBe('The plan: first read the code, then change it.');
    expect(await page.locator('#stage-pane .attempt').getAttribute('data-status')).toBe('success');
    expect(await facts.textContent()).toMatch(/Duration\d+(\.\d+)? (ms|s)/);
    expect(await page.locator('.run-facts').textContent()).toContain('1,200 in / 340 out');
    // The stage's status.json, as a tree.
    const status = page.locator('#stage-pane .stage-file[data-file="status.json"]');
    await status.locator('> summary').click();
    await expect.poll(() => status.locator('.json-key').allTextContents()).toContain('outcome');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('shows a tool stage stdout and stderr while the command runs', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    // The command prints, then waits until the test lets it finish (a file in its stage directory).
    const command =
      'echo compiling x.ts; echo "warning: slow disk" >&2; while [ ! -f "$ATTRACTOR_STAGE_DIR/go" ]; do sleep 0.05; done; echo finished';
    const id = await server.startRun(
      `digraph slow { start [shape=Mdiamond]; build [type=tool, tool_command=${JSON.stringify(command)}]; done [shape=Msquare]; start -> build -> done }`,
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=build`);
    const output = page.locator('#stage-pane .attempt .tool-output');
    await expect.poll(() => output.locator('pre').first().textContent()).toBe('compiling x.ts\n');
    expect(await output.locator('pre.stderr').textContent()).toBe('warning: slow disk\n');
    expect(await page.locator('#stage-pane .attempt').getAttribute('data-status')).toBe('running');
    await screenshot(page, 'tool-live-output');

    await writeFile(join(server.runsDir, id, 'build', 'go'), '');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await expect.poll(() => output.locator('pre').first().textContent()).toBe('compiling x.ts\nfinished\n');
    await expect
      .poll(() => page.locator('#stage-pane .stage-file[data-file="stdout.txt"] pre').textContent())
      .toBe('compiling x.ts\nfinished\n');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it("shows the stages of a sub-pipeline in its node's stage pane", async () => {
    const root = await mkdtemp(join(tmpdir(), 'attractor-ui-subgraph-'));
    await mkdir(join(root, 'pipelines'));
    await writeFile(
      join(root, 'pipelines', 'parent.dot'),
      'digraph Parent { start [shape=Mdiamond]; go [shape=hexagon, label="Go?"]; checks [type="subgraph", graph_ref="checks.dot"]; exit [shape=Msquare]; start -> go; go -> checks [label="[G] Go"]; checks -> exit }',
    );
    await writeFile(
      join(root, 'pipelines', 'checks.dot'),
      'digraph Checks { start [shape=Mdiamond]; review [prompt="Review the change"]; exit [shape=Msquare]; start -> review -> exit }',
    );
    const server = await resources.startServer({
      allowTools: true,
      pipelinesDir: join(root, 'pipelines'),
      workdir: root,
    });
    const browser = await resources.launchBrowser();
    const response = await server.call('/pipelines', { method: 'POST', json: { file: 'parent.dot' } });
    const { id } = (await response.json()) as { id: string };
    // Child events are streamed live (the child's own run directory keeps them): watch from before it starts.
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=checks`);
    await page.locator('#gate-panel button[data-answer="G"]').waitFor();
    await page.keyboard.press('g');
    await page.locator('#run-state[data-state="success"]').waitFor();
    const child = page.locator('#stage-pane #child-run');
    await expect.poll(() => child.locator('h3 .badge').textContent()).toBe('success');
    expect(
      await child.locator('li').evaluateAll((items) => items.map((item) => item.getAttribute('data-node'))),
    ).toEqual(['start', 'review', 'exit']);
    expect(await child.locator('li[data-node="review"]').getAttribute('data-status')).toBe('success');
    // After a reload the child's stages come back from its own run directory.
    await page.reload();
    await page.locator('#run-state[data-state="success"]').waitFor();
    await expect.poll(() => child.locator('h3 .badge').textContent()).toBe('success');
    expect(await child.locator('li').count()).toBe(3);
    await screenshot(page, 'sub-pipeline');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it("opens a sub-pipeline's own run view, live: its graph with statuses, its gate, its stage panes", async () => {
    const root = await mkdtemp(join(tmpdir(), 'attractor-ui-child-view-'));
    await mkdir(join(root, 'pipelines'));
    await writeFile(
      join(root, 'pipelines', 'parent.dot'),
      'digraph Parent { start [shape=Mdiamond]; plan [prompt="Plan"]; checks [type="subgraph", graph_ref="checks.dot"]; exit [shape=Msquare]; start -> plan -> checks -> exit }',
    );
    await writeFile(
      join(root, 'pipelines', 'checks.dot'),
      'digraph Checks { start [shape=Mdiamond]; review [prompt="Review the change"]; ok [shape=hexagon, label="Ship it?"]; exit [shape=Msquare]; start -> review -> ok; ok -> exit [label="[Y] Yes"]; ok -> review [label="[N] No"] }',
    );
    const server = await resources.startServer({
      allowTools: true,
      pipelinesDir: join(root, 'pipelines'),
      workdir: root,
    });
    const browser = await resources.launchBrowser();
    const response = await server.call('/pipelines', { method: 'POST', json: { file: 'parent.dot' } });
    const { id } = (await response.json()) as { id: string };
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=checks`);

    // The child's question waits on the parent's page too; the node's pane links to the child's own view.
    await page.locator('#gate-panel button[data-answer="Y"]').waitFor();
    expect(await page.locator('#run-state').textContent()).toBe('waiting');
    await page.locator('#stage-pane #open-child-run').click();
    await page.waitForURL((url) => url.searchParams.get('child') === 'checks/child');
    await page.locator('#graph[data-loaded] g#node-review.status-success').waitFor();
    await page.locator('#graph g#node-ok.status-waiting').waitFor();
    expect(await page.locator('#graph g.node').count()).toBe(4);
    expect(await page.locator('#run-title').textContent()).toBe('Checks');
    expect(await page.locator('#run-id').textContent()).toBe(`${id} / checks/child`);
    expect(await page.locator('#cancel-button').count()).toBe(0);
    await page.locator('#gate-panel button[data-answer="N"]').waitFor();
    await screenshot(page, 'child-run-waiting-1400');
    expect(await checkAccessibility(page)).toEqual([]);

    // Answered here, the child goes round again: the review's second visit shows in its pane, live.
    await page.keyboard.press('n');
    await page.locator('#graph g#node-ok.status-waiting').waitFor();
    await page.click('#graph g#node-review');
    await page.waitForURL((url) => url.searchParams.get('stage') === 'review');
    await expect.poll(() => page.locator('#stage-pane .visit').count()).toBe(2);
    await expect
      .poll(() =>
        page.locator('#stage-pane .visit[open] .stage-file[data-file="prompt.md"] pre').textContent(),
      )
      .toContain('Review the change');
    // The first visit keeps its own files (moved under visits/1 when the node ran again).
    await expect
      .poll(() => page.locator('#stage-pane .visit[data-visit="1"] .stage-files').getAttribute('data-dir'))
      .toBe('review/visits/1');
    await page.locator('#gate-panel button[data-answer="Y"]').waitFor();
    await page.keyboard.press('y');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-exit.status-success').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'child-run-done-390');
    await page.setViewportSize({ width: 1400, height: 900 });

    // After a reload the child's view comes back from its own run directory; the crumb leads back to the parent.
    await page.reload();
    await page.locator('#graph[data-loaded] g#node-ok.status-success').waitFor();
    await expect.poll(() => page.locator('#timeline .timeline-row').count()).toBe(6);
    await page.click('#parent-run-link');
    await page.locator('#graph[data-loaded] g#node-checks.status-success').waitFor();
    await page.locator('#run-state[data-state="success"]').waitFor();
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('opens each branch of a nested parallel block as its own view, coloured by the stages inside it', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    // Branch a holds a parallel block of its own (x, y); `common` runs in both outer branches.
    const id = await server.startRun(`digraph Nested {
      start [shape=Mdiamond]; done [shape=Msquare]
      fan [shape=component]; join [shape=tripleoctagon]
      inner [shape=component]; ijoin [shape=tripleoctagon]
      a [prompt="a"]; b [prompt="b"]; x [prompt="x"]; y [prompt="y"]; common [prompt="common"]
      start -> fan; fan -> a; fan -> b
      a -> inner; inner -> x; inner -> y; x -> ijoin; y -> ijoin; ijoin -> common
      b -> common; common -> join; join -> done
    }`);
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=fan`);
    await page.locator('#run-state[data-state="success"]').waitFor();
    const branches = page.locator('#stage-pane #branches li');
    await expect.poll(() => branches.count()).toBe(2);
    expect(
      await branches.evaluateAll((items) => items.map((item) => item.getAttribute('data-branch'))),
    ).toEqual(['a', 'b']);
    // A stage inside a branch has no checkpoint of its own to fork from.
    await page.click('#graph g#node-common');
    await expect.poll(() => page.locator('#stage-pane .visit').count()).toBe(2);
    expect(await page.locator('#fork-button').count()).toBe(0);

    // Branch b's view: only b and its `common` are coloured; branch a's stages stay pending.
    await page.goto(`${server.url}/runs/${encodeURIComponent(id)}?stage=fan`);
    await page.locator('#stage-pane #branches li[data-branch="b"] a').click();
    await page.waitForURL((url) => url.searchParams.get('branch') === 'b');
    await page.locator('#graph[data-loaded] g#node-b.status-success').waitFor();
    await page.locator('#graph g#node-common.status-success').waitFor();
    for (const node of ['a', 'inner', 'x', 'y', 'ijoin', 'fan', 'join'])
      await page.locator(`#graph g#node-${node}.status-pending`).waitFor();
    expect(await page.locator('#branch-scope').textContent()).toContain('Parallel branch b of fan');

    // Branch a's inner block lists its own branches; branch a › x colours x only.
    await page.goto(`${server.url}/runs/${encodeURIComponent(id)}?branch=a&stage=inner`);
    await page.locator('#graph[data-loaded] g#node-inner.status-success').waitFor();
    await page.locator('#graph g#node-b.status-pending').waitFor();
    await expect
      .poll(() => branches.evaluateAll((items) => items.map((item) => item.getAttribute('data-branch'))))
      .toEqual(['a/x', 'a/y']);
    await screenshot(page, 'nested-parallel-branch');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'nested-parallel-branch-390');
    await page.setViewportSize({ width: 1400, height: 900 });
    await branches.first().locator('a').click();
    await page.waitForURL((url) => url.searchParams.get('branch') === 'a/x');
    await page.locator('#graph[data-loaded] g#node-x.status-success').waitFor();
    await page.locator('#graph g#node-y.status-pending').waitFor();
    await page.click('#graph g#node-x');
    await expect
      .poll(() => page.locator('#stage-pane .stage-files').getAttribute('data-dir'))
      .toBe('fan/branches/a/inner/branches/x/x');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('shows each attempt of a retried stage with its own status, output and duration', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    // Fails slowly once (leaving a marker in its stage directory), then succeeds at once.
    const command =
      'if [ -f "$ATTRACTOR_STAGE_DIR/.tried" ]; then echo ready; else touch "$ATTRACTOR_STAGE_DIR/.tried"; sleep 0.4; echo busy >&2; exit 1; fi';
    const id = await server.startRun(
      `digraph retry { start [shape=Mdiamond]; fetch [type=tool, max_retries=1, tool_command=${JSON.stringify(command)}]; done [shape=Msquare]; start -> fetch -> done }`,
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=fetch`);
    await page.locator('#run-state[data-state="success"]').waitFor();
    const attempts = page.locator('#stage-pane .visit .attempt');
    await expect.poll(() => attempts.count()).toBe(2);
    expect(
      await attempts.evaluateAll((items) => items.map((item) => item.getAttribute('data-status'))),
    ).toEqual(['failed', 'success']);
    expect(await attempts.nth(0).locator('pre.stderr').textContent()).toBe('busy\n');
    expect(await attempts.nth(0).locator('.fail-text').textContent()).toContain('exited with code 1');
    expect(await attempts.nth(1).locator('.tool-output pre').textContent()).toBe('ready\n');
    // Each attempt's own duration: the second one does not count the first one and the back-off (the engine's
    // stage.completed does), so the two add up to no more than the visit's total.
    const toMs = (text: string) => {
      const [, value, unit] = /([\d.]+) (ms|s)/.exec(text)!;
      return Number(value) * (unit === 's' ? 1000 : 1);
    };
    const durationMs = async (index: number) =>
      toMs((await attempts.nth(index).locator('.facts div:nth-child(3) dd').textContent())!);
    const total = (await page.locator('#stage-pane .visit-total').textContent())!;
    expect(total).toContain('2 attempts');
    expect(await durationMs(0)).toBeGreaterThanOrEqual(400);
    // (formatDuration rounds to 0.1 s above a second.)
    expect((await durationMs(0)) + (await durationMs(1))).toBeLessThanOrEqual(toMs(total) + 100);
    await expect.poll(() => page.locator('#timeline .timeline-row').count()).toBe(4);
    await screenshot(page, 'retried-stage');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
