/**
 * Issue 28 item 7 in Chromium: a run with a git workspace shows what each stage changed in its stage pane (files,
 * lines added and deleted, the patch) and what the whole run changed in its "Changes" tab; "Fork from here" forks
 * the files too (the fork's changes start at the stage's commit).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspaceProvider } from '@attractor/workspace';
import { describe, expect, it } from 'vitest';
import { git } from '../git-repository.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const PIPELINE = `digraph edits {
  start [shape=Mdiamond]
  edit [shape=parallelogram, tool_command="printf 'one\\\\ntwo\\\\nthree\\\\n' > notes.txt && echo added > added.txt"]
  noop [shape=parallelogram, tool_command="true"]
  polish [shape=parallelogram, tool_command="echo polished >> added.txt"]
  exit [shape=Msquare]
  start -> edit -> noop -> polish -> exit
}`;

const resources = closeAfterEach();

describe('web UI: what a run and its stages changed (issue 28)', () => {
  it("shows a stage's diff in its pane and the run's in the Changes tab, and a fork from a stage keeps its files", async () => {
    const repo = await mkdtemp(join(tmpdir(), 'attractor-ui-repo-'));
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'notes.txt'), 'one\n2\nthree\n');
    await writeFile(join(repo, '.gitignore'), '.attractor/\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    const server = await resources.startServer({
      allowTools: true,
      workdir: repo,
      workspace: createWorkspaceProvider({ defaultMode: 'git' }),
    });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(PIPELINE);
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#run-state[data-state="success"]').waitFor();

    // The stage pane of `edit`: its commit, its two files with their lines, and the patch.
    await page.click('#graph g#node-edit');
    const changes = page.locator('#stage-pane .stage-changes');
    await changes.waitFor();
    expect(await changes.getAttribute('data-commit')).toBe(git(repo, 'rev-parse', `attractor/${id}~1`));
    expect(await changes.locator('.diff-summary').textContent()).toContain('2 files changed, +2 −1');
    expect(await changes.locator('tr[data-path="notes.txt"]').getAttribute('data-status')).toBe('modified');
    expect(await changes.locator('tr[data-path="added.txt"]').textContent()).toContain('+1 −0');
    await changes.locator('.diff-patch summary').click();
    expect(await changes.locator('.patch-text .patch-add').allTextContents()).toContain('+two\n');
    expect(await changes.locator('.patch-text .patch-del').allTextContents()).toContain('-2\n');
    await screenshot(page, 'stage-diff');

    // A stage that changed nothing shows no changes.
    await page.click('#graph g#node-noop');
    await page.waitForURL(/\?stage=noop$/);
    await page.locator('#stage-pane[data-node="noop"] .visit').waitFor();
    expect(await page.locator('#stage-pane .stage-changes').count()).toBe(0);

    // The run's total.
    await page.click('#tab-changes');
    const total = page.locator('#run-changes');
    await total.waitFor();
    expect(await total.textContent()).toContain(`branch attractor/${id}`);
    expect(
      await total
        .locator('.diff-files tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-path'))),
    ).toEqual(['added.txt', 'notes.txt']);
    expect(await total.locator('.diff-summary').textContent()).toContain('+3 −1');
    await screenshot(page, 'run-diff');
    expect(await checkAccessibility(page)).toEqual([]);

    // Fork after `edit` from its pane: the fork starts from edit's files; its changes are polish's only.
    await page.click('#graph g#node-edit');
    await page.locator('#fork-button').click();
    await page.waitForURL((url) => !url.pathname.endsWith(encodeURIComponent(id)));
    const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.click('#tab-changes');
    const forked = page.locator('#run-changes');
    await forked.waitFor();
    expect(
      await forked
        .locator('.diff-files tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-path'))),
    ).toEqual(['added.txt']);
    expect(await forked.locator('.diff-summary').textContent()).toContain(
      git(repo, 'rev-parse', `attractor/${id}~1`).slice(0, 12),
    );
    expect(git(repo, 'show', `attractor/${forkId}:added.txt`)).toBe('added\npolished');
    expect(git(repo, 'show', `attractor/${forkId}:notes.txt`)).toBe('one\ntwo\nthree');
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);
});
