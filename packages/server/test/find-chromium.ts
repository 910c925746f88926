/**
 * Finds a Chromium for the browser tests without apt or a download at test time (issue 14): `CHROMIUM_PATH`, else a
 * system Chromium or Chrome, else the Chromium that the `@sparticuz/chromium` dev dependency ships inside its npm
 * package (unpacked to the temp directory on first use).
 */
import { existsSync } from 'node:fs';

/** A browser executable and the extra command-line switches it needs. */
export interface FoundChromium {
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Where it came from, for messages. */
  readonly source: string;
}

const SYSTEM_BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/**
 * The Chromium to drive: `CHROMIUM_PATH` (must exist), then the first of {@link SYSTEM_BROWSERS}, then
 * `@sparticuz/chromium`'s.
 * @throws Error when `CHROMIUM_PATH` names no file.
 */
export async function findChromium(): Promise<FoundChromium> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') {
    if (!existsSync(configured))
      throw new Error(`CHROMIUM_PATH=${configured} does not exist; unset it or fix it`);
    return { executablePath: configured, args: [], source: 'CHROMIUM_PATH' };
  }
  const system = SYSTEM_BROWSERS.find((path) => existsSync(path));
  if (system !== undefined) return { executablePath: system, args: [], source: system };
  const { default: packaged } = await import('@sparticuz/chromium');
  return {
    executablePath: await packaged.executablePath(),
    args: packaged.args.filter((arg) => !arg.startsWith('--headless')),
    source: '@sparticuz/chromium',
  };
}
