/**
 * The web UI's files (issue "A web UI people would choose"): a Preact + TypeScript app built by Vite into the
 * package's `dist/ui/` when the package is built — nothing is built at run time. `index.html` is served for the
 * page routes (`/`, `/new`, `/runs/<id>`), the hashed bundles from `dist/ui/assets/`. Only those files are served.
 */
import { readFileSync } from 'node:fs';

/** Content types by file extension. */
const CONTENT_TYPES = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
} as const satisfies Record<string, string>;

/** A built asset: a hashed name such as `index-B1x2y3.js`, no directories. */
const ASSET_PATTERN = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|svg)$/;

const cache = new Map<string, string>();

/** A UI file's content, its type, and whether its name is content-hashed (cacheable forever). */
export interface UiFile {
  readonly body: string;
  readonly contentType: string;
  readonly immutable: boolean;
}

/**
 * The UI file `name` (`index.html`, or `assets/<hashed name>`), or undefined for any other name or when it does not
 * exist. When the package was not built (`dist/ui` missing), `index.html` is a short page saying so.
 */
export function readUiFile(name: string): UiFile | undefined {
  let extension: keyof typeof CONTENT_TYPES;
  if (name === 'index.html') extension = 'html';
  else {
    const asset = name.startsWith('assets/') ? ASSET_PATTERN.exec(name.slice('assets/'.length)) : null;
    if (asset === null) return undefined;
    extension = asset[1] as keyof typeof CONTENT_TYPES;
  }
  let body = cache.get(name);
  if (body === undefined) {
    try {
      // `../dist/ui/` from both `dist/` (installed) and `src/` (tests run the sources).
      body = readFileSync(new URL(`../dist/ui/${name}`, import.meta.url), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (name !== 'index.html') return undefined;
      body = NOT_BUILT_PAGE;
    }
    cache.set(name, body);
  }
  return { body, contentType: CONTENT_TYPES[extension], immutable: name !== 'index.html' };
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Attractor</title>
<p>The web UI of @attractor/server is not built: run <code>pnpm --filter @attractor/server build</code>. The API works without it.</p></html>`;
