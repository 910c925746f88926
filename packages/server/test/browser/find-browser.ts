/**
 * Finds a Chromium for the browser tests without downloading one (vendor CDNs are not reachable in CI): the
 * `CHROMIUM_PATH` environment variable, else a system Chromium or Chrome, else the Chromium shipped inside the
 * `@sparticuz/chromium` npm package when it is installed.
 */
import { existsSync } from 'node:fs';

/** Where a system Chromium or Chrome usually is, in the order tried. */
const SYSTEM_BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/**
 * The executable path of a Chromium to drive with playwright-core.
 * @throws {Error} naming every place looked at and how to provide a browser, when none is found.
 */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env.CHROMIUM_PATH?.trim();
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  const system = SYSTEM_BROWSERS.find((path) => existsSync(path));
  if (system !== undefined) return system;
  try {
    const name = '@sparticuz/chromium';
    const module = (await import(name)) as { default: { executablePath(): Promise<string> } };
    return await module.default.executablePath();
  } catch {
    throw new Error(
      `The browser tests need Chromium and found none: CHROMIUM_PATH is unset, none of ${SYSTEM_BROWSERS.join(', ')} exists, and @sparticuz/chromium is not installed. Install one (\`apt-get install -y chromium\`, or \`pnpm add -D @sparticuz/chromium\`) or set CHROMIUM_PATH.`,
    );
  }
}
