/**
 * The new-run page in Chromium: a pipeline that declares inputs is started with its inputs and context values typed
 * as JSON; a value that is not a JSON object is refused on the page, and a missing input by the server, each with its
 * message. axe at 1,400 and 390 px.
 */
import { describe, expect, it } from 'vitest';
import type { RunDetails } from '../../src/index.js';
import { waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

const TYPED = `digraph typed {
  graph [goal="Triage an issue", inputs="issue: integer"]
  start [shape=Mdiamond]
  triage [prompt="Triage issue $input.issue"]
  done [shape=Msquare]
  start -> triage -> done
}
`;

describe('web UI: the new-run page (a new user could not start a pipeline with inputs)', () => {
  it('starts a pipeline that declares inputs with its inputs and context values', async () => {
    const server = await resources.startServer();
    const browser = await resources.launchBrowser();
    const page = await browser.open(server, '/new');
    await page.fill('#dot-input', TYPED);
    const error = page.locator('#start-error');

    // No inputs: the server refuses, naming the input.
    await page.click('#start-button');
    await expect.poll(() => error.textContent()).toContain('"issue"');

    // Not JSON, then not an object: refused on the page before anything is sent.
    await page.fill('#inputs-input', '{"issue": ');
    await page.click('#start-button');
    await expect.poll(() => error.textContent()).toContain('The inputs are not JSON');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('inputs-input');
    await page.fill('#inputs-input', '[42]');
    await page.click('#start-button');
    await expect.poll(() => error.textContent()).toContain('The inputs must be a JSON object');
    expect((await server.json<{ pipelines: unknown[] }>('/pipelines')).pipelines).toEqual([]);
    await screenshot(page, 'new-run-inputs-refused');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await checkAccessibility(page)).toEqual([]);
    await page.setViewportSize({ width: 1400, height: 900 });

    await page.fill('#inputs-input', '{"issue": 42}');
    await page.fill('#context-input', '{"team": "core"}');
    await page.click('#start-button');
    await page.waitForURL(/\/runs\/[^/]+-typed$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    await page.locator('#run-state[data-state="success"]').waitFor();
    const details = await waitFor(async () => {
      const run = await server.json<RunDetails>(`/pipelines/${id}`);
      return run.state === 'success' ? run : undefined;
    }, 'the run to succeed');
    expect(details.state).toBe('success');
    const { context } = await server.json<{ context: Record<string, unknown> }>(`/pipelines/${id}/context`);
    expect(context['input.issue']).toBe(42);
    expect(context.team).toBe('core');
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);
});
