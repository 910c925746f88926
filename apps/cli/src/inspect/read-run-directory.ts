import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Checkpoint, PipelineEvent, RunManifest } from '@attractor/engine';
import { CliError } from '../errors/cli-error.js';
import { describeFsError } from '../errors/describe-fs-error.js';

/** The files of a run directory the CLI reads (spec §5.6, DESIGN.md "Run directory"). */
export interface RunDirectory {
  /** Absolute path. */
  readonly logsRoot: string;
  readonly manifest: RunManifest;
  readonly checkpoint?: Checkpoint;
  /** Every event of `events.jsonl` in order; a torn last line (crash mid-write) is skipped. */
  readonly events: readonly PipelineEvent[];
}

/**
 * Reads `manifest.json`, `checkpoint.json` and `events.jsonl` of a run directory.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` when the directory does not exist or has no `manifest.json`;
 *   `CLI_INVALID_INPUT` when a file is not valid JSON.
 */
export async function readRunDirectory(
  path: string,
  options: { readonly cwd: string },
): Promise<RunDirectory> {
  const logsRoot = resolve(options.cwd, path);
  const kind = await stat(logsRoot).then(
    (info) => (info.isDirectory() ? 'directory' : 'file'),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return 'missing';
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `Cannot read run directory ${path}: ${describeFsError(error)}. Check its permissions.`,
        cause: error,
      });
    },
  );
  if (kind !== 'directory') {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `${kind === 'file' ? `${path} is a file, not a run directory` : `Run directory ${path} not found`}. Runs are kept under ./.attractor/runs/ by default; pass one of those directories${/\.(dot|gv)$/i.test(path) ? ` (a DOT file is started with \`attractor run ${path}\`)` : ''}.`,
    });
  }
  const manifestText = await readOptional(join(logsRoot, 'manifest.json'));
  if (manifestText === undefined) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `${path} is not a run directory: it has no manifest.json. Pass a directory that \`attractor run\` created (printed at its start).`,
    });
  }
  const manifest = parseJson(manifestText, join(path, 'manifest.json')) as RunManifest;
  const checkpointText = await readOptional(join(logsRoot, 'checkpoint.json'));
  const checkpoint =
    checkpointText === undefined
      ? undefined
      : (parseJson(checkpointText, join(path, 'checkpoint.json')) as Checkpoint);
  const eventsText = (await readOptional(join(logsRoot, 'events.jsonl'))) ?? '';
  const events: PipelineEvent[] = [];
  for (const line of eventsText.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as PipelineEvent);
    } catch {
      // A torn trailing line after a crash; every complete line before it is kept.
    }
  }
  return { logsRoot, manifest, ...(checkpoint === undefined ? {} : { checkpoint }), events };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // An unreadable run directory is a user-facing fault: one line naming the file and the cause, no stack.
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Cannot read ${path}: ${describeFsError(error)}. Check the run directory's permissions (ls -l ${dirname(path)}).`,
      cause: error,
    });
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `${path} is not valid JSON (${(error as Error).message}). The run directory is damaged.`,
      cause: error,
    });
  }
}
