/**
 * `node --check <file>` in a child process: the one way to learn where a JavaScript module fails to parse, since
 * the SyntaxError that `import()` rejects with carries no line or column (Node prints them only for an uncaught
 * error, and for `--check`).
 */
import { execFile } from 'node:child_process';

/** How long the syntax check may take, in milliseconds. */
const CHECK_TIMEOUT_MS = 10_000;

/** What `node --check` found: the file parses, or it does not and Node printed where (`stderr`). */
export type NodeCheckResult = { readonly parses: true } | { readonly parses: false; readonly stderr: string };

/**
 * Runs `node --check path` with the Node.js running this process (only the file itself is parsed, not the modules
 * it imports).
 *
 * @param path - the module file, an absolute path.
 * @returns the result, or undefined when the check could not run or took more than 10 s.
 */
export function nodeCheckProcess(path: string): Promise<NodeCheckResult | undefined> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--check', path],
      { timeout: CHECK_TIMEOUT_MS, encoding: 'utf8', maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error === null) resolve({ parses: true });
        else resolve(typeof error.code === 'number' && !error.killed ? { parses: false, stderr } : undefined);
      },
    );
  });
}
