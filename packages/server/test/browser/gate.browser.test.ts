/**
 * The web UI in Chromium: sign-in (a wrong token is refused with a message), the simulate box showing the server's
 * mode, starting a pipeline, answering its human gate with the keyboard while the timeout counts down, the stage
 * pane and the context, at 1,400 px and at a 390 px phone width, with axe-core's WCAG AA rules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFixture } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

describe('web UI: sign-in, gates, stage pane (issue "A web UI people would choose")', () => {
  it('refuses a wrong token with a message in the dialog, then signs in with the right one', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(server.url);
    await page.locator('#token-dialog[open]').waitFor();
    await page.fill('#token-input', 'not-the-token');
    await page.click('#token-submit');
    await expect
      .poll(() => page.locator('#token-error').textContent())
      .toContain('did not accept that token');
    expect(await page.locator('#token-dialog').getAttribute('open')).not.toBeNull();
    await screenshot(page, 'sign-in-wrong-token');
    expect(await checkAccessibility(page)).toEqual([]);

    await page.fill('#token-input', server.token);
    await page.click('#token-submit');
    await page.locator('#run-table').waitFor();
    expect(await page.locator('#token-dialog').getAttribute('open')).toBeNull();
    expect(browser.pageErrors).toEqual([]);
  });

  it('starts a pipeline, shows the gate with its countdown and default, and takes the answer from the keyboard', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/new');

    // The default server simulates every run: the box says so and cannot be unticked.
    const simulate = page.locator('#simulate-input');
    await expect.poll(() => simulate.isDisabled()).toBe(true);
    expect(await simulate.isChecked()).toBe(true);
    expect(await page.locator('#simulate-note').textContent()).toContain('simulates every LLM stage');

    await page.fill('#dot-input', await readFixture('timed-gate.dot'));
    await page.click('#start-button');
    await page.waitForURL(/\/runs\/[^/]+-review$/);

    await page.locator('#graph g#node-approve.status-waiting').waitFor();
    await page.locator('#graph g#node-draft.status-success').waitFor();
    const gate = page.locator('#gate-panel');
    await gate.waitFor();
    expect(await gate.locator('.question-text').textContent()).toBe('Approve the draft?');
    expect(await gate.locator('button[data-answer]').allTextContents()).toEqual(['A Approve', 'R Revise']);
    expect(await gate.locator('.countdown').textContent()).toMatch(/^\d+ s left$/);
    expect(await gate.textContent()).toContain('then it takes “Approve” (A)');
    await expect.poll(() => page.locator('#run-state').textContent()).toBe('waiting');
    await screenshot(page, 'gate-waiting-1400');
    expect(await checkAccessibility(page)).toEqual([]);

    // The accelerator key answers (focus is on the page, not in a text field).
    await page.keyboard.press('a');
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    await page.locator('#graph g#node-approve.status-success').waitFor();
    expect(await page.locator('#gate-panel').count()).toBe(0);

    // Keyboard navigation: focus a graph node and open its stage pane with Enter.
    await page.locator('#graph g#node-draft').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?stage=draft$/);
    const prompt = page.locator('#stage-pane .stage-file[data-file="prompt.md"] pre');
    await expect.poll(() => prompt.textContent()).toContain('Draft the change for: Ship a reviewed change');
    expect(await page.locator('#stage-pane .attempt').count()).toBe(1);

    await page.click('#tab-context');
    await page.locator('#context-table tr[data-key="human.gate.selected"]').waitFor();
    await screenshot(page, 'run-finished-1400');
    expect(await checkAccessibility(page)).toEqual([]);

    // A phone: the same page at 390 px has no horizontal scrolling and passes the same checks.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#tab-timeline');
    await page.locator('#timeline').waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'run-finished-390');
    expect(await checkAccessibility(page)).toEqual([]);

    // The runs list has the run with its state; a reload keeps the token (sessionStorage) and the URL.
    await page.goto(`${server.url}/`);
    await expect
      .poll(() => page.locator('#run-table tbody tr').first().getAttribute('data-state'))
      .toBe('success');
    expect(await page.locator('#run-count').textContent()).toBe('1 run');
    await screenshot(page, 'runs-390');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('cancels a waiting run and resumes it from the page', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const id = await server.startRun(await readFixture('timed-gate.dot'));
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#gate-panel').waitFor();

    await page.click('#cancel-button');
    await page.click('#cancel-dialog-confirm');
    await page.locator('#run-state[data-state="cancelled"]').waitFor();
    expect(await page.locator('#gate-panel').count()).toBe(0);
    await page.locator('#graph g#node-approve.status-cancelled').waitFor();
    expect(await page.locator('.legend li').allTextContents()).toContain('cancelled');
    await screenshot(page, 'run-cancelled');

    await page.click('#resume-button');
    await page.locator('#gate-panel').waitFor();
    await expect.poll(() => page.locator('#run-state').textContent()).toBe('waiting');
    await page.locator('#gate-panel button[data-answer="A"]').click();
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-done.status-success').waitFor();
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  it('forks a finished run from a stage pane and opens the new run, which starts after that stage', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const dot = `digraph Linear {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      a [prompt="Step A"]
      b [prompt="Step B"]
      start -> a -> b -> exit
    }`;
    const id = await server.startRun(dot, { simulate: true });
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}`);
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.click('#graph g#node-a');
    await page.locator('#fork-button').click();
    await page.waitForURL(
      (url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(encodeURIComponent(id)),
    );
    const forkId = decodeURIComponent(new URL(page.url()).pathname.slice('/runs/'.length));
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph g#node-b.status-success').waitFor();
    // The page says where the fork came from, and the stages it inherited show as completed, not pending.
    expect(await page.locator('#forked-from').textContent()).toBe(`Forked from ${id} after a@1`);
    expect(await page.locator('#forked-from a').getAttribute('href')).toBe(
      `/runs/${encodeURIComponent(id)}?stage=a`,
    );
    await page.locator('#graph g#node-a.status-success').waitFor();
    await page.locator('#graph g#node-start.status-success').waitFor();
    await page.click('#graph g#node-a');
    await expect
      .poll(() => page.locator('#stage-pane #inherited-stage').textContent())
      .toContain(`this stage ran (success) in ${id}`);
    await screenshot(page, 'run-forked');
    expect(await checkAccessibility(page)).toEqual([]);

    // Fork again from the source run, with an edited DOT: first a broken one (refused inline, with the server's
    // diagnostic), then one that goes from a straight to a new stage c.
    await page.goto(`${server.url}/runs/${encodeURIComponent(id)}?stage=a`);
    await page.locator('#fork-edit > summary').click();
    // The stage pane's fork takes context values too, checked before anything is sent.
    await page.locator('#stage-fork-context').fill('{"choice": ');
    await page.click('#stage-fork-button');
    await expect
      .poll(() => page.locator('#stage-fork-error').textContent())
      .toContain('The context values are not JSON');
    await page.locator('#stage-fork-context').fill('{}');
    await page.check('#stage-fork-edit-dot');
    const editor = page.locator('#stage-fork-dot');
    await expect.poll(() => editor.inputValue()).toContain('start -> a -> b -> exit');
    await editor.fill(dot.replace('start -> a -> b -> exit', 'start -> a -> c -> exit'));
    await page.click('#stage-fork-button');
    await expect
      .poll(() => page.locator('#stage-fork-error').textContent())
      .toContain('error[reachability]: Node "b" cannot be reached');
    expect(new URL(page.url()).pathname).toBe(`/runs/${encodeURIComponent(id)}`);
    await screenshot(page, 'fork-edited-refused');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'fork-edited-refused-390');
    await page.setViewportSize({ width: 1400, height: 900 });
    await editor.fill(
      dot
        .replace('start -> a -> b -> exit', 'start -> a -> c -> exit')
        .replace('b [prompt="Step B"]', 'c [prompt="Step C"]'),
    );
    await page.click('#stage-fork-button');
    await page.waitForURL((url) => !url.pathname.endsWith(encodeURIComponent(id)));
    await page.locator('#run-state[data-state="success"]').waitFor();
    await page.locator('#graph[data-loaded] g#node-c.status-success').waitFor();
    expect(await page.locator('#graph g#node-b').count()).toBe(0);
    await page.locator('#graph g#node-a.status-success').waitFor();
    // The fork ran only what comes after `a`, and says where it came from.
    expect(existsSync(join(server.runsDir, forkId, 'a'))).toBe(false);
    expect(existsSync(join(server.runsDir, forkId, 'b', 'status.json'))).toBe(true);
    expect(
      JSON.parse(readFileSync(join(server.runsDir, forkId, 'manifest.json'), 'utf8')).forked_from,
    ).toMatchObject({
      run_id: id,
    });
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
