/**
 * The server's pipelines directory: `.dot` files a client may start by path (`POST /pipelines {"file": ...}`)
 * instead of sending DOT text. Paths never leave the directory.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { FileRefusedError, readTextFileSync } from '@attractor/engine';
import { ApiError } from './errors/api-error.js';

/** Max directory depth searched by {@link listPipelineFiles}. */
const MAX_DEPTH = 4;

/**
 * The `.dot` files under `pipelinesDir` (searched at most 4 levels deep, skipping dot-directories and
 * `node_modules`), as `/`-separated paths relative to it, sorted.
 */
export function listPipelineFiles(pipelinesDir: string): string[] {
  const found: string[] = [];
  const walk = (directory: string, depth: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH) walk(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.dot'))
        found.push(relative(pipelinesDir, path).split(sep).join('/'));
    }
  };
  walk(pipelinesDir, 0);
  return found.sort();
}

/**
 * The real absolute path of a `.dot` file given relative to `pipelinesDir`, after checking that it stays inside.
 * @throws {ApiError} `PIPELINE_FILE_NOT_FOUND` (400 without a pipelines directory, 404 otherwise) when the server
 *   has no pipelines directory, the path leaves it (`..`, absolute paths, symbolic links), is not a `.dot` file, or
 *   does not exist.
 */
export function resolvePipelineFile(pipelinesDir: string | undefined, path: string): string {
  if (pipelinesDir === undefined) {
    throw new ApiError({
      status: 400,
      code: 'PIPELINE_FILE_NOT_FOUND',
      message: `This server has no pipelines directory, so "file" cannot be used; send the DOT text as "dot", or start the server with a pipelines directory (attractor serve --pipelines <dir>).`,
    });
  }
  const notFound = (why: string) =>
    new ApiError({
      status: 404,
      code: 'PIPELINE_FILE_NOT_FOUND',
      message: `Pipeline file "${path}" ${why}. GET /pipeline-files lists the files you can start.`,
    });
  if (!path.endsWith('.dot')) throw notFound('is not a .dot file');
  const root = resolve(pipelinesDir);
  const full = resolve(root, path);
  if (!full.startsWith(root + sep)) throw notFound('is outside the pipelines directory');
  if (!existsSync(full)) throw notFound('does not exist');
  const real = realpathSync(full);
  if (!real.startsWith(realpathSync(root) + sep) || !statSync(real).isFile())
    throw notFound('is outside the pipelines directory');
  return real;
}

/**
 * Reads a `.dot` file given relative to `pipelinesDir`: its text, and its real absolute path (the graph's file
 * name, so that the files its `graph_ref`s name are found next to it whatever the run's working directory is).
 * @throws {ApiError} see {@link resolvePipelineFile}.
 */
export function readPipelineFile(
  pipelinesDir: string | undefined,
  path: string,
): { readonly source: string; readonly path: string } {
  const real = resolvePipelineFile(pipelinesDir, path);
  try {
    return { source: readTextFileSync(real, { what: 'Pipeline file' }), path: real };
  } catch (error) {
    if (FileRefusedError.isInstance(error)) {
      throw new ApiError({ status: 422, code: 'FILE_REFUSED', message: error.message.replace(real, path) });
    }
    throw error;
  }
}

/**
 * The `readGraphFile` of `prepareGraph` for a pipeline of the pipelines directory: reads the DOT file a `graph_ref`
 * names (spec §9.4; an absolute path, resolved next to the parent file), only inside `pipelinesDir`, like the files
 * a client may start. Returns `undefined` when the file does not exist; throws (a "cannot be read" diagnostic of
 * lint `subgraph_ref`) when it is outside the directory, through `..` or a symbolic link, or is not a file.
 */
export function createPipelineFileReader(pipelinesDir: string): (path: string) => string | undefined {
  const root = realpathSync(resolve(pipelinesDir));
  const outside = () =>
    new Error(
      `it is outside the pipelines directory; this server runs sub-pipelines only from ${pipelinesDir}`,
    );
  return (path) => {
    const full = resolve(root, path);
    if (!full.startsWith(root + sep)) throw outside();
    let real: string;
    try {
      real = realpathSync(full);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
    if (!real.startsWith(root + sep)) throw outside();
    return readTextFileSync(real, { what: 'The file' });
  };
}
