/**
 * Browser-test helpers: launches Chromium (`findChromium`: CHROMIUM_PATH, a system one, or @sparticuz/chromium's) with a fresh profile, opens pages signed in to a test
 * server, saves screenshots under `test-artifacts/` (gitignored; CI keeps them as artifacts) and runs axe-core's
 * WCAG 2 AA rules on a page.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterEach } from 'vitest';
import type { StartServerOptions } from '../../src/index.js';
import { findChromium } from '../find-chromium.js';
import { startTestServer, type TestServer } from '../test-server.js';

/** Where screenshots go. */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;

/** A launched browser with its own profile directory. */
export interface BrowserSession {
  readonly context: BrowserContext;
  /** A new page at `path` of the server, with the token already in sessionStorage; collects page errors. */
  open(
    server: TestServer,
    path: string,
    options?: { readonly width?: number; readonly height?: number },
  ): Promise<Page>;
  /** Uncaught errors of every page opened so far. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh user-data-dir. */
export async function launchBrowser(): Promise<BrowserSession> {
  if (!existsSync(new URL('../../dist/ui/index.html', import.meta.url))) {
    throw new Error(
      'The web UI is not built: run `pnpm --filter @attractor/server build` before the browser tests.',
    );
  }
  const found = await findChromium();
  const userDataDir = await mkdtemp(join(tmpdir(), 'attractor-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: found.executablePath,
    headless: true,
    args: [
      ...found.args,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1400, height: 900 },
  });
  const pageErrors: string[] = [];
  return {
    context,
    pageErrors,
    async open(server, path, options = {}) {
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.setViewportSize({ width: options.width ?? 1400, height: options.height ?? 900 });
      await page.addInitScript(`sessionStorage.setItem('attractor.token', ${JSON.stringify(server.token)})`);
      await page.goto(`${server.url}${path}`);
      return page;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot as `test-artifacts/<name>.png`: the full page, or only the viewport for very long pages. */
export async function screenshot(
  page: Page,
  name: string,
  options: { readonly fullPage?: boolean } = {},
): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: options.fullPage ?? true });
}

let axeSource: string | undefined;

/** One axe-core violation, short. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/** Runs axe-core's WCAG 2.0/2.1 A and AA rules on the page; returns the violations. */
export async function checkAccessibility(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // page.evaluate is not subject to the page's Content-Security-Policy, unlike a <script> tag.
  await page.evaluate(axeSource);
  // A string, not a function: it runs in the page, whose globals (document, axe) this Node program does not type.
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.join(' ')),
    }));
  })()`);
}

/** Starts the test server and browser of the running test; {@link closeAfterEach} closes both after it. */
export interface TestResources {
  /** {@link startTestServer}, closed after the test. */
  startServer(options?: Partial<StartServerOptions>): Promise<TestServer>;
  /** {@link launchBrowser}, closed after the test (before its server). */
  launchBrowser(): Promise<BrowserSession>;
}

/** Registers an `afterEach` that closes the browser and then the server the test started through the result. */
export function closeAfterEach(): TestResources {
  let server: TestServer | undefined;
  let browser: BrowserSession | undefined;
  afterEach(async () => {
    await browser?.close();
    await server?.close();
    browser = undefined;
    server = undefined;
  });
  return {
    async startServer(options) {
      server = await startTestServer(options);
      return server;
    },
    async launchBrowser() {
      browser = await launchBrowser();
      return browser;
    },
  };
}
