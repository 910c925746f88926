/**
 * File access confined to the run's working directory (docs/architecture.md "The AI-SDK backend"): every path
 * a coding tool touches is resolved to its real path, following symbolic links, and refused unless it lies
 * inside the real working directory. Also the file operations of the tools of coding-agent-loop-spec §3.3
 * (read, write, edit, glob, grep), which the tool definitions in `agent-tools.ts` call.
 */
import { lstat, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { glob } from 'tinyglobby';
import { PathOutsideWorkdirError } from './errors/path-outside-workdir-error.js';

/** Directories never searched by `glob` and `grep`. */
const IGNORED = ['**/node_modules/**', '**/.git/**'];

/** Bytes inspected to decide that a file is binary (it contains a NUL byte). */
const BINARY_SNIFF_BYTES = 8192;

/** Files larger than this are skipped by `grep`, in bytes. */
const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/**
 * Resolves a path given by the model (relative to `workdir`, or absolute) to a real absolute path inside
 * `workdir`. The path need not exist: its nearest existing ancestor is resolved with `realpath` and the rest
 * appended, so a write through a symlinked directory is caught too.
 *
 * @throws {PathOutsideWorkdirError} when the real path is outside the real working directory, or a component is a
 *   dangling symbolic link (whose target could be anywhere).
 */
export async function resolveInWorkdir(workdir: string, requested: string): Promise<string> {
  const root = await realpath(workdir);
  const absolute = resolve(workdir, requested);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
      const parent = dirname(existing);
      if (parent === existing) break;
      rest.unshift(existing.slice(parent.length).replace(/^[\\/]/, ''));
      existing = parent;
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw new PathOutsideWorkdirError({
        requestedPath: requested,
        workdir: root,
        reason: `${existing} is a dangling symbolic link`,
      });
    }
    throw error;
  }
  const full = rest.length === 0 ? real : join(real, ...rest);
  if (!isInside(root, full)) {
    throw new PathOutsideWorkdirError({
      requestedPath: requested,
      workdir: root,
      ...(isInside(root, absolute) ? { reason: `it resolves to ${full} through a symbolic link` } : {}),
    });
  }
  return full;
}

/** A path relative to the working directory, for tool output. */
function display(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' ? '.' : rel;
}

/** Options of {@link readWorkdirFile}. */
export interface ReadFileOptions {
  readonly workdir: string;
  readonly filePath: string;
  /** First line to return, from 1. Default: 1. */
  readonly offset?: number;
  /** Maximum lines to return. Default: 2000. */
  readonly limit?: number;
}

/**
 * The `read_file` tool of coding-agent-loop-spec §3.3: the file's lines numbered as `NNN | content`, from
 * `offset` for `limit` lines, with a note when more lines follow.
 *
 * @throws {Error} when the file is missing, a directory or binary; {@link PathOutsideWorkdirError} outside the workdir.
 */
export async function readWorkdirFile(options: ReadFileOptions): Promise<string> {
  const path = await resolveInWorkdir(options.workdir, options.filePath);
  const info = await statOrExplain(path, options.filePath);
  if (info.isDirectory()) throw new Error(`${options.filePath} is a directory; use glob to list files.`);
  const buffer = await readFile(path);
  if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new Error(
      `${options.filePath} is a binary file (${buffer.length} bytes); it cannot be shown as text.`,
    );
  }
  const lines = buffer.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const offset = Math.max(1, options.offset ?? 1);
  const limit = Math.max(1, options.limit ?? 2000);
  const selected = lines.slice(offset - 1, offset - 1 + limit);
  const width = String(offset + selected.length - 1).length;
  const body = selected
    .map((line, index) => `${String(offset + index).padStart(width)} | ${line}`)
    .join('\n');
  const remaining = lines.length - (offset - 1 + selected.length);
  if (selected.length === 0)
    return `(${options.filePath} has ${lines.length} lines; none from line ${offset})`;
  return remaining > 0
    ? `${body}\n(${remaining} more lines; read on with offset=${offset + selected.length})`
    : body;
}

async function statOrExplain(path: string, requested: string) {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw new Error(`File not found: ${requested}`);
    throw error;
  }
}

/**
 * The `write_file` tool: writes `content` (UTF-8), creating parent directories. Returns a confirmation with the
 * byte count.
 *
 * @throws {PathOutsideWorkdirError} outside the working directory.
 */
export async function writeWorkdirFile(options: {
  readonly workdir: string;
  readonly filePath: string;
  readonly content: string;
}): Promise<string> {
  const path = await resolveInWorkdir(options.workdir, options.filePath);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, options.content, 'utf8');
  const root = await realpath(options.workdir);
  return `Wrote ${Buffer.byteLength(options.content, 'utf8')} bytes to ${display(root, path)}`;
}

/**
 * The `edit_file` tool: replaces an exact `oldString` with `newString`, once (it must occur exactly once) or
 * everywhere with `replaceAll`. Returns how many occurrences were replaced.
 *
 * @throws {Error} when the file is missing, `oldString` is empty or not found, or occurs more than once without
 *   `replaceAll`; {@link PathOutsideWorkdirError} outside the working directory.
 */
export async function editWorkdirFile(options: {
  readonly workdir: string;
  readonly filePath: string;
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll?: boolean;
}): Promise<string> {
  const path = await resolveInWorkdir(options.workdir, options.filePath);
  await statOrExplain(path, options.filePath);
  if (options.oldString === '') throw new Error('old_string is empty; give the exact text to replace.');
  const text = await readFile(path, 'utf8');
  const count = text.split(options.oldString).length - 1;
  if (count === 0) {
    throw new Error(
      `old_string was not found in ${options.filePath}. Read the file and copy the exact text, including whitespace.`,
    );
  }
  if (count > 1 && options.replaceAll !== true) {
    throw new Error(
      `old_string occurs ${count} times in ${options.filePath}. Include more surrounding context to make it unique, or set replace_all to true.`,
    );
  }
  const updated =
    options.replaceAll === true
      ? text.split(options.oldString).join(options.newString)
      : text.replace(options.oldString, () => options.newString);
  await writeFile(path, updated, 'utf8');
  return `Replaced ${count} occurrence${count === 1 ? '' : 's'} in ${options.filePath}`;
}

/**
 * The `glob` tool: files under `path` (default: the working directory) matching `pattern`, relative to the
 * working directory, newest first (by modification time). `node_modules` and `.git` are skipped; symbolic links
 * are not followed.
 *
 * @throws {PathOutsideWorkdirError} when `path` is outside the working directory.
 */
export async function globWorkdir(options: {
  readonly workdir: string;
  readonly pattern: string;
  readonly path?: string;
}): Promise<string> {
  const root = await realpath(options.workdir);
  const base = await resolveInWorkdir(options.workdir, options.path ?? '.');
  if (isAbsolute(options.pattern) || options.pattern.split(/[\\/]/).includes('..')) {
    throw new PathOutsideWorkdirError({ requestedPath: options.pattern, workdir: root });
  }
  const files = await glob(options.pattern, {
    cwd: base,
    absolute: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: IGNORED,
  });
  const inside = files.filter((file) => isInside(root, file));
  const withTimes = await Promise.all(
    inside.map(async (file) => ({ file, mtimeMs: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  withTimes.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  if (withTimes.length === 0) return `No files match ${options.pattern}`;
  return withTimes.map(({ file }) => display(root, file)).join('\n');
}

/** A bare filter such as `*.py` matches at any depth, like ripgrep's `--glob`. */
function grepGlob(filter: string | undefined): string {
  if (filter === undefined || filter === '') return '**/*';
  return filter.includes('/') ? filter : `**/${filter}`;
}

/** Options of {@link grepWorkdir}. */
export interface GrepOptions {
  readonly workdir: string;
  /** A JavaScript regular expression, matched against each line. */
  readonly pattern: string;
  /** A file or directory to search. Default: the working directory. */
  readonly path?: string;
  /** Only files matching this glob, e.g. `*.py` or `src/**\/*.ts`. Default: all files. */
  readonly globFilter?: string;
  readonly caseInsensitive?: boolean;
  /** Maximum matching lines. Default: 100. */
  readonly maxResults?: number;
}

/**
 * The `grep` tool: matching lines as `path:line: text` (paths relative to the working directory). Implemented
 * as a line regex over globbed files, so no external binary is needed; binary files and files over 5 MB are
 * skipped.
 *
 * @throws {Error} for an invalid regex or a missing path; {@link PathOutsideWorkdirError} outside the workdir.
 */
export async function grepWorkdir(options: GrepOptions): Promise<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(options.pattern, options.caseInsensitive === true ? 'i' : '');
  } catch (error) {
    throw new Error(`Invalid regex ${JSON.stringify(options.pattern)}: ${(error as Error).message}`);
  }
  const root = await realpath(options.workdir);
  const target = await resolveInWorkdir(options.workdir, options.path ?? '.');
  const info = await statOrExplain(target, options.path ?? '.');
  const files = info.isDirectory()
    ? (
        await glob(grepGlob(options.globFilter), {
          cwd: target,
          absolute: true,
          onlyFiles: true,
          followSymbolicLinks: false,
          ignore: IGNORED,
        })
      ).sort()
    : [target];
  const maxResults = Math.max(1, options.maxResults ?? 100);
  const matches: string[] = [];
  for (const file of files) {
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || !isInside(root, real)) continue;
    const size = (await stat(real)).size;
    if (size > GREP_MAX_FILE_BYTES) continue;
    const buffer = await readFile(real);
    if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) continue;
    const lines = buffer.toString('utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (regex.test(lines[index]!)) {
        matches.push(`${display(root, file)}:${index + 1}: ${lines[index]}`);
        if (matches.length >= maxResults) {
          return `${matches.join('\n')}\n(stopped at max_results=${maxResults})`;
        }
      }
    }
  }
  return matches.length === 0 ? `No matches for ${JSON.stringify(options.pattern)}` : matches.join('\n');
}

/** Byte budget for project instructions (coding-agent-loop-spec §6.5). */
export const PROJECT_INSTRUCTIONS_BUDGET_BYTES = 32 * 1024;

/**
 * The project instructions of coding-agent-loop-spec §6.5 found at the root of the working directory:
 * `AGENTS.md`, plus `CLAUDE.md` for Anthropic, `GEMINI.md` for Google and `.codex/instructions.md` for OpenAI,
 * joined and cut at 32 KB with a marker. Empty when there are none.
 */
export async function readProjectInstructions(workdir: string, provider: string): Promise<string> {
  const names = ['AGENTS.md'];
  if (provider === 'anthropic') names.push('CLAUDE.md');
  if (provider === 'google') names.push('GEMINI.md');
  if (provider === 'openai') names.push('.codex/instructions.md');
  const parts: string[] = [];
  for (const name of names) {
    const path = await resolveInWorkdir(workdir, name).catch(() => undefined);
    if (path === undefined) continue;
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined && text.trim() !== '') parts.push(`# ${name}\n\n${text.trim()}`);
  }
  const joined = parts.join('\n\n');
  if (Buffer.byteLength(joined, 'utf8') <= PROJECT_INSTRUCTIONS_BUDGET_BYTES) return joined;
  const cut = Buffer.from(joined, 'utf8').subarray(0, PROJECT_INSTRUCTIONS_BUDGET_BYTES).toString('utf8');
  return `${cut}\n[Project instructions truncated at 32KB]`;
}
