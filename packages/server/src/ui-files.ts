/**
 * The web UI's static files (issue "Web UI"): plain HTML, CSS and JavaScript shipped in the package's `ui/`
 * directory, no build step. Only the listed files are served.
 */
import { readFileSync } from 'node:fs';

/** The UI files and their content types. */
const UI_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const satisfies Record<string, string>;

const cache = new Map<string, string>();

/** The content and type of a UI file, or undefined for any name not in the list. */
export function readUiFile(
  name: string,
): { readonly body: string; readonly contentType: string } | undefined {
  if (!Object.hasOwn(UI_FILES, name)) return undefined;
  const contentType = UI_FILES[name as keyof typeof UI_FILES];
  let body = cache.get(name);
  if (body === undefined) {
    body = readFileSync(new URL(`../ui/${name}`, import.meta.url), 'utf8');
    cache.set(name, body);
  }
  return { body, contentType };
}
