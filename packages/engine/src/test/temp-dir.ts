/**
 * Temporary directories for tests (`@attractor/engine/test`), removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

try {
  afterEach(() => {
    for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
} catch {
  // Imported outside a Vitest file (a child process a test starts loads this entry): there is no test to clean after.
}

/**
 * Creates a fresh directory under the OS temp directory (`fs.mkdtemp`, never a shared one) and removes it, with
 * everything in it, after the current test. Call it inside a test or a hook of a Vitest file.
 *
 * @param prefix The start of the directory's name. Default: `attractor-`.
 * @returns The directory's absolute path.
 */
export function tempDir(prefix = 'attractor-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}
