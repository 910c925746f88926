/**
 * Dark mode in Chromium (issue "Web UI, second round"): the page follows `prefers-color-scheme` until the header's
 * toggle picks a theme, which is remembered; the graph's nodes stay legible (their label against their fill) and axe's
 * WCAG AA rules pass in the dark theme. A dark screenshot is kept in test-artifacts/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readFixture, waitFor } from '../test-server.js';
import { checkAccessibility, closeAfterEach, screenshot } from './browser-session.js';

const resources = closeAfterEach();

/** WCAG contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(first: string, second: string): number {
  const luminance = (colour: string) => {
    const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

/** The theme of the page as it shows. */
interface ShownTheme {
  readonly theme: string | undefined;
  readonly background: string;
  readonly pressed: string | null | undefined;
  readonly stored: string | null;
  /** Each graph node's id, shape fill and label fill (`rgb(...)`). */
  readonly nodes: readonly { readonly id: string; readonly fill: string; readonly text: string }[];
}

/** The page's theme attribute, its background colour, and each graph node's label and fill colours. */
function themeOf(page: Page): Promise<ShownTheme> {
  // A string, not a function: it runs in the page, whose globals this Node program does not type.
  // Node fills change with a short CSS transition: after a style flush (which starts them), read the colours once
  // the transitions under way have ended.
  return page.evaluate<ShownTheme>(`(async () => {
    void document.body.offsetHeight;
    await Promise.all(document.getAnimations().filter((animation) => animation instanceof CSSTransition).map((animation) => animation.finished.catch(() => undefined)));
    return {
    theme: document.documentElement.dataset.theme,
    background: getComputedStyle(document.documentElement).backgroundColor,
    pressed: document.getElementById('theme-toggle')?.getAttribute('aria-pressed'),
    stored: localStorage.getItem('attractor.theme'),
    nodes: [...document.querySelectorAll('#graph g.node')].map((node) => ({
      id: node.id,
      fill: getComputedStyle(node.querySelector('polygon, ellipse, path')).fill,
      text: getComputedStyle(node.querySelector('text')).fill,
    })),
  };
  })()`);
}

describe('web UI: dark mode (issue "Web UI, second round")', () => {
  it('follows the system scheme, keeps graph labels legible, passes axe, and remembers the toggle', async () => {
    const server = await resources.startServer({ allowTools: true });
    const browser = await resources.launchBrowser();
    const id = await server.startRun(await readFixture('parallel-failing-branch.dot'));
    await waitFor(
      async () => (await server.json<{ live: boolean }>(`/pipelines/${id}`)).live === false,
      'the run to end',
    );
    const page = await browser.open(server, `/runs/${encodeURIComponent(id)}?stage=b1`);
    await page.locator('#graph g#node-b1.status-fail').waitFor();

    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(async () => (await themeOf(page)).theme).toBe('light');
    const light = await themeOf(page);
    expect(contrast(light.background, 'rgb(255, 255, 255)')).toBeLessThan(1.2);

    // The system turns dark: the page follows, with no choice stored.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(async () => (await themeOf(page)).theme).toBe('dark');
    const dark = await themeOf(page);
    expect(dark.pressed).toBe('true');
    expect(dark.stored).toBeNull();
    expect(contrast(dark.background, 'rgb(0, 0, 0)')).toBeLessThan(1.5);
    expect(dark.nodes.length).toBeGreaterThan(5);
    for (const node of [...light.nodes, ...dark.nodes])
      expect({ node: node.id, legible: contrast(node.text, node.fill) >= 4.5 }).toEqual({
        node: node.id,
        legible: true,
      });
    // The nodes are redrawn for the dark theme, not left light.
    expect(dark.nodes.find((node) => node.id === 'node-b1')!.fill).not.toBe(
      light.nodes.find((node) => node.id === 'node-b1')!.fill,
    );
    await expect
      .poll(() => page.locator('#stage-pane .stage-file[data-file="stderr.txt"] pre').count())
      .toBe(1);
    await screenshot(page, 'run-dark');
    expect(await checkAccessibility(page)).toEqual([]);

    // The toggle picks light and remembers it, over the system's dark.
    await page.click('#theme-toggle');
    await expect.poll(async () => (await themeOf(page)).theme).toBe('light');
    expect((await themeOf(page)).stored).toBe('light');
    expect((await themeOf(page)).pressed).toBe('false');
    await page.reload();
    await page.locator('#graph[data-loaded]').waitFor();
    expect((await themeOf(page)).theme).toBe('light');

    // Picked dark stays dark when the system turns light.
    await page.click('#theme-toggle');
    await expect.poll(async () => (await themeOf(page)).theme).toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect((await themeOf(page)).theme).toBe('dark');
    expect((await themeOf(page)).stored).toBe('dark');

    // The other pages in the dark theme: the runs list and the new-run form.
    await page.click('.topbar a[href="/"]');
    await page.locator('#run-table tbody tr').first().waitFor();
    expect((await themeOf(page)).theme).toBe('dark');
    expect(await checkAccessibility(page)).toEqual([]);
    await page.click('.topbar a[href="/new"]');
    await page.locator('#dot-input').waitFor();
    expect(await checkAccessibility(page)).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
