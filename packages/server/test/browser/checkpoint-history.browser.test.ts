/**
 * Time travel in Chromium: the run page's History tab lists the run's checkpoints; choosing one shows the context at
 * that point, its diff from the previous checkpoint and what its stage changed in the workspace; "Fork from here"
 * takes edited context values (checked before sending, the server's refusal shown) and the fork routes on them.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspaceProvider } from '@attractor/workspace';
import { describe, expect, it } from 'vitest';
import type { CheckpointHistoryPage, RunDetails } from '../../src/index.js';
import { git } from '../git-repository.js';
import { readFixture, waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';
import { chainPipeline } from './chain-pipeline.js';

/** `pick` writes a file and routes on `context.choice`, which the run starts with. */
const CHOOSER = await readFixture('chooser.dot');

const resources = closeAfterEach();

describe('web UI: time travel over the checkpoints of a run', () => {
  it('lists the checkpoints, shows the context and its diff at one, and forks from it with an edited context value', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'attractor-ui-history-'));
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, '.gitignore'), '.attractor/\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    const server = await resources.startServer({
      allowTools: true,
      workdir: repo,
      workspace: createWorkspaceProvider({ defaultMode: 'git' }),
    });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(CHOOSER, { context: { choice: 'left' } });
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#run-state[data-state="success"]').waitFor();

    // The History tab, by keyboard from the Context tab.
    await page.click('#tab-context');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#tab-history').getAttribute('aria-selected')).toBe('true');
    const items = page.locator('#checkpoint-history .history-item');
    await items.nth(3).waitFor();
    const labels = (await items.locator('.history-node').allTextContents()).map((text) => text.trim());
    expect(labels.slice(0, 4)).toEqual(['Run started', 'start', 'pick', 'left']);
    expect(await page.locator('#checkpoint-detail').count()).toBe(0);

    // Choosing `left`: the context there and what changed since `pick`.
    await items.nth(3).click();
    expect(await items.nth(3).getAttribute('aria-pressed')).toBe('true');
    const detail = page.locator('#checkpoint-detail');
    expect(await detail.locator('#checkpoint-title').textContent()).toContain('After left@1');
    const changed = detail.locator('#context-diff tr[data-key="tool_stdout"]');
    expect(await changed.getAttribute('data-change')).toBe('changed');
    expect(await changed.textContent()).toContain('was "picking""went left"');
    expect(await detail.locator('#context-diff tr[data-key="choice"]').count()).toBe(0);

    // Choosing `pick` (by keyboard): its added keys, its whole context, and the file its stage wrote.
    await items.nth(2).focus();
    await page.keyboard.press('Enter');
    expect(await detail.locator('#checkpoint-title').textContent()).toContain('After pick@1');
    expect(await detail.locator('#context-diff tr[data-key="tool_stdout"]').getAttribute('data-change')).toBe(
      'added',
    );
    await detail.locator('#whole-context > summary').click();
    expect(await detail.locator('#whole-context tr[data-key="choice"]').textContent()).toContain('"left"');
    const stageChanges = detail.locator('.stage-changes');
    await stageChanges.waitFor();
    expect(await stageChanges.getAttribute('data-dir')).toBe('pick');
    expect(await stageChanges.locator('tr[data-path="picked.txt"]').getAttribute('data-status')).toBe(
      'added',
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'checkpoint-history');

    // "Fork from here": the context editor refuses what the server would, before sending.
    await detail.locator('#history-fork-open').click();
    const editor = page.locator('#history-fork-context');
    const error = page.locator('#history-fork-error');
    await editor.fill('{"choice": right}');
    await page.click('#history-fork-button');
    expect(await error.textContent()).toContain('The context values are not JSON');
    await editor.fill('["choice"]');
    await page.click('#history-fork-button');
    expect(await error.textContent()).toBe(
      'The context values must be a JSON object of key: value, e.g. {"choice": "right"}.',
    );
    await editor.fill('{"graph.goal": "x"}');
    await page.click('#history-fork-button');
    expect(await error.textContent()).toContain('context key "graph.goal" mirrors a graph attribute');
    // The server's refusal is shown as it is: an edited pipeline that lacks the stage.
    await editor.fill('{"choice": "right"}');
    await page.check('#history-fork-edit-dot');
    const dot = page.locator('#history-fork-dot');
    await waitFor(async () => (await dot.inputValue()).includes('digraph chooser'), 'the DOT in the editor');
    await dot.fill('digraph chooser { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }');
    await page.click('#history-fork-button');
    await waitFor(
      async () => ((await error.textContent()) ?? '').includes('has no node "pick"'),
      'the refusal',
    );
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'checkpoint-history-fork-refused');

    // Without the edited pipeline, the fork starts after pick with choice=right and goes right.
    await page.uncheck('#history-fork-edit-dot');
    await page.click('#history-fork-button');
    await page.waitForURL((url) => !url.pathname.endsWith(`/runs/${encodeURIComponent(id)}`));
    const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    expect(forkId).not.toBe(id);
    await page.locator('#run-state[data-state="success"]').waitFor();
    expect(await page.locator('#forked-from').textContent()).toContain('pick@1');
    await page.locator('#graph g#node-right.status-success').waitFor();
    const fork = await server.json<RunDetails>(`/pipelines/${encodeURIComponent(forkId)}`);
    expect(fork.nodeStatuses.right).toBe('success');
    expect(fork.nodeStatuses.left).toBeUndefined();
    const history = await server.json<CheckpointHistoryPage>(
      `/pipelines/${encodeURIComponent(forkId)}/checkpoints`,
    );
    expect(history.checkpoints.find((entry) => entry.node === 'right')!.context).toMatchObject({
      choice: 'right',
      tool_stdout: 'went right',
    });
    await screenshot(page, 'checkpoint-history-forked');
    expect(browser.pageErrors).toEqual([]);
  });

  it('follows a live run, checkpoint by checkpoint, and pages a long history ("Load all")', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    // start, a gate, 107 stages, done: over 100 checkpoints, one page.
    const id = await server.startRun(chainPipeline(110));
    await waitFor(
      async () =>
        (await server.json<{ questions: { id: string }[] }>(`/pipelines/${id}/questions`)).questions[0],
      'the gate',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.click('#tab-history');
    const items = page.locator('#checkpoint-history .history-item');
    await items.nth(1).waitFor();
    expect(await items.count()).toBe(2);

    // The gate answered (its key), the run goes on: its checkpoints join the list as they are saved.
    await page.keyboard.press('g');
    await page.locator('#run-state[data-state="success"]').waitFor();
    const { total } = await server.json<CheckpointHistoryPage>(`/pipelines/${id}/checkpoints?limit=1`);
    expect(total).toBeGreaterThan(100);
    await expect.poll(() => items.count()).toBe(total);
    expect(await page.locator('#history-more').count()).toBe(0);

    // Opened after the run: one page, then the rest on demand.
    const later = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await later.click('#tab-history');
    const more = later.locator('#history-more');
    await more.waitFor();
    expect(await later.locator('#checkpoint-history .history-item').count()).toBe(100);
    expect(await more.textContent()).toBe(`Load all ${total} checkpoints`);
    await more.click();
    await expect.poll(() => later.locator('#checkpoint-history .history-item').count()).toBe(total);
    expect(await more.count()).toBe(0);
    await later.locator(`#checkpoint-history .history-item[data-index="${total - 2}"]`).click();
    expect(await later.locator('#checkpoint-title').textContent()).toContain(`After s107@1`);
    expect(browser.pageErrors).toEqual([]);
  });

  it("shows a child run's checkpoints on its own page, without fork", async () => {
    const root = await mkdtemp(join(tmpdir(), 'attractor-ui-history-child-'));
    // parent.dot runs checks.dot as its sub-pipeline `checks`.
    const pipelinesDir = new URL('../fixtures/sub-pipeline/', import.meta.url).pathname;
    const server = await resources.startServer({ pipelinesDir, workdir: root, allowTools: true });
    const browser = await resources.launchBrowser();
    const { id } = await server.json<{ id: string }>('/pipelines', {
      method: 'POST',
      json: { file: 'parent.dot' },
    });
    await waitFor(
      async () => (await server.json<RunDetails>(`/pipelines/${id}`)).state === 'success',
      'the run to succeed',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?child=checks/child`);
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.click('#tab-history');
    const lint = page.locator('#checkpoint-history .history-item', { hasText: 'lint' });
    await lint.click();
    expect(await page.locator('#context-diff tr[data-key="tool_stdout"]').textContent()).toContain(
      '"lint ok"',
    );
    expect(await page.locator('#history-fork-open').count()).toBe(0);
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'checkpoint-history-child');
    expect(browser.pageErrors).toEqual([]);
  });

  it('is usable and axe-clean at 390 px, in both themes', async () => {
    const workdir = await mkdtemp(join(tmpdir(), 'attractor-ui-history-narrow-'));
    const server = await resources.startServer({ allowTools: true, workdir });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(CHOOSER, { context: { choice: 'left' } });
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`, { width: 390, height: 844 });
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.click('#tab-history');
    const items = page.locator('#checkpoint-history .history-item');
    await items.nth(3).click();
    await page.locator('#checkpoint-detail #context-diff').waitFor();
    await page.click('#history-fork-open');
    await page.locator('#history-fork-context').waitFor();
    await screenshot(page, 'checkpoint-history-390');
    expect(await checkAccessibility(page)).toEqual([]);
    // Nothing wider than the viewport (the five tabs wrap).
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // And in the dark theme.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await checkAccessibility(page)).toEqual([]);
    await screenshot(page, 'checkpoint-history-390-dark');
    expect(browser.pageErrors).toEqual([]);
  });
});
