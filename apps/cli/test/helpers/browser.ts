/**
 * The web UI's browser-test helpers of `@attractor/server` (packages/server/test/browser/browser-session.ts: Chromium
 * found by `findChromium`, a fresh profile, pages signed in with the token, screenshots under that package's
 * `test-artifacts/`), loaded at run time so that this package's type check stays inside its own directory.
 */
import type { Page } from 'playwright-core';

/** A launched headless Chromium (structurally the server tests' `BrowserSession`). */
export interface BrowserSession {
  /** A new page at `path` of the server at `server.url`, with `server.token` already in sessionStorage. */
  open(server: { readonly url: string; readonly token: string }, path: string): Promise<Page>;
  /** Uncaught errors of every page opened so far. */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

const SESSION = new URL('../../../../packages/server/test/browser/browser-session.ts', import.meta.url).href;

/** Launches headless Chromium with the server tests' `launchBrowser`. */
export async function launchBrowser(): Promise<BrowserSession> {
  const session = (await import(/* @vite-ignore */ SESSION)) as {
    launchBrowser(): Promise<BrowserSession>;
  };
  return session.launchBrowser();
}

/** Saves a screenshot of `page` as `packages/server/test-artifacts/<name>.png` (gitignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const session = (await import(/* @vite-ignore */ SESSION)) as {
    screenshot(page: Page, name: string): Promise<void>;
  };
  await session.screenshot(page, name);
}
