/**
 * The stage pane's live output in Chromium (issue "Web UI, second round"): a tool stage's stdout follows its newest
 * line until the user scrolls up, stays where the user put it while more arrives, and follows again once scrolled
 * back to the bottom.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './browser-session.js';

const resources = closeAfterEach();

/** Prints lines `from`..`to - 1` (`line <n>`). */
const printLines = (from: number, to: number) =>
  `i=${from}; while [ $i -lt ${to} ]; do echo "line $i"; i=$((i+1)); done`;

/** Waits until the stage directory holds `file`. */
const waitForFile = (file: string) => `while [ ! -f "$ATTRACTOR_STAGE_DIR/${file}" ]; do sleep 0.05; done`;

/** The text's last line and how far (px) the element's bottom is from its scrolled-to position, read at once. */
function scrollState(pre: Locator) {
  return pre.evaluate((element) => ({
    last: element.textContent?.trimEnd().split('\n').at(-1),
    fromBottom: element.scrollHeight - element.scrollTop - element.clientHeight,
    scrollTop: element.scrollTop,
    overflows: element.scrollHeight > element.clientHeight,
  }));
}

describe('web UI: live output follows (issue "Web UI, second round")', () => {
  it('follows stdout unless the user scrolled up, and again once back at the bottom', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    const command = [
      printLines(0, 100),
      waitForFile('more'),
      printLines(100, 200),
      waitForFile('again'),
      printLines(200, 300),
      waitForFile('go'),
    ].join('; ');
    const id = await server.startRun(
      `digraph follow { start [shape=Mdiamond]; build [type=tool, tool_command=${JSON.stringify(command)}]; done [shape=Msquare]; start -> build -> done }`,
    );
    const stageDir = join(server.runsDir, id, 'build');
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=build`);
    const stdout = page.locator('#stage-pane .attempt .tool-output pre').first();

    // Following: the newest line is in view.
    await expect.poll(async () => (await scrollState(stdout)).last).toBe('line 99');
    await expect.poll(async () => (await scrollState(stdout)).fromBottom).toBeLessThanOrEqual(2);
    expect((await scrollState(stdout)).overflows).toBe(true);

    // The user scrolls up: more output arrives, the view stays where it is.
    await stdout.hover();
    // Further than the text is tall: the view ends at the top, however the wheel's scroll is animated.
    await page.mouse.wheel(0, -100_000);
    await expect.poll(async () => (await scrollState(stdout)).scrollTop).toBe(0);
    await writeFile(join(stageDir, 'more'), '');
    await expect.poll(async () => (await scrollState(stdout)).last).toBe('line 199');
    expect((await scrollState(stdout)).scrollTop).toBe(0);

    // Back at the bottom, it follows again.
    await page.mouse.wheel(0, 100_000);
    await expect.poll(async () => (await scrollState(stdout)).fromBottom).toBeLessThanOrEqual(2);
    await writeFile(join(stageDir, 'again'), '');
    await expect.poll(async () => (await scrollState(stdout)).last).toBe('line 299');
    expect((await scrollState(stdout)).fromBottom).toBeLessThanOrEqual(2);

    await writeFile(join(stageDir, 'go'), '');
    await page.locator('#run-state[data-state="success"]').waitFor();
    expect(browser.pageErrors).toEqual([]);
  });
});

describe('web UI: a resumed stage (issue "Web UI, second round")', () => {
  it('labels the attempt a resume ran "resumed", apart from the one the cancel stopped', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    const command = `echo started; ${waitForFile('go')}; echo finished`;
    const id = await server.startRun(
      `digraph resumed { start [shape=Mdiamond]; build [type=tool, tool_command=${JSON.stringify(command)}]; done [shape=Msquare]; start -> build -> done }`,
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=build`);
    await expect
      .poll(() => page.locator('#stage-pane .attempt .tool-output pre').first().textContent())
      .toBe('started\n');
    await page.click('#cancel-button');
    await page.click('#cancel-dialog-confirm');
    await page.locator('#run-state[data-state="cancelled"]').waitFor();
    await writeFile(join(server.runsDir, id, 'build', 'go'), '');
    await page.click('#resume-button');
    await page.locator('#run-state[data-state="success"]').waitFor();

    const attempts = page.locator('#stage-pane .attempt');
    await expect.poll(() => attempts.count()).toBe(2);
    expect(await attempts.nth(0).getAttribute('data-status')).toBe('cancelled');
    expect(await attempts.nth(0).locator('.facts div').first().textContent()).toBe('Attempt1');
    expect(await attempts.nth(1).getAttribute('data-status')).toBe('success');
    expect(await attempts.nth(1).locator('.facts div').first().textContent()).toBe('Attempt1 (resumed)');
    // The timeline tells them apart too.
    expect(await page.locator('.timeline-label').allTextContents()).toEqual([
      'start',
      'build',
      'build resumed',
      'done',
    ]);
    expect(browser.pageErrors).toEqual([]);
  });
});
