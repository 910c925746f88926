import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors/api-error.js';
import { createUniqueRunDirectory, resolveRunDirectory } from './run-directory-files.js';

async function runDirectory(): Promise<{ runsDir: string; runDir: string }> {
  const runsDir = await mkdtemp(join(tmpdir(), 'attractor-files-'));
  const runDir = join(runsDir, 'run-1');
  await mkdir(join(runDir, 'plan'), { recursive: true });
  await writeFile(join(runDir, 'manifest.json'), '{}');
  await writeFile(join(runDir, 'plan', 'prompt.md'), 'the prompt');
  await writeFile(join(runsDir, 'secret.md'), 'secret');
  return { runsDir, runDir };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (ApiError.isInstance(error)) return error.code;
    throw error;
  }
  return 'no error';
}

describe('run directory files', () => {
  it('resolves run ids only to run directories under the runs directory', async () => {
    const { runsDir, runDir } = await runDirectory();
    expect(resolveRunDirectory(runsDir, 'run-1')).toBe(runDir);
    for (const id of ['..', '../run-1', 'run-1/plan', 'nope', '.hidden'])
      expect(
        codeOf(() => resolveRunDirectory(runsDir, id)),
        id,
      ).toBe('RUN_NOT_FOUND');
  });

  it('creates a unique directory when the name is taken', async () => {
    const { runsDir } = await runDirectory();
    expect(createUniqueRunDirectory(runsDir, 'run-1')).toBe(join(runsDir, 'run-1-2'));
    expect(createUniqueRunDirectory(runsDir, 'run-1')).toBe(join(runsDir, 'run-1-3'));
    expect(createUniqueRunDirectory(runsDir, 'fresh')).toBe(join(runsDir, 'fresh'));
  });
});
