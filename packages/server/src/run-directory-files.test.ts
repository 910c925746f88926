import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunStore } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors/api-error.js';
import { createUniqueRunDirectory, readStageFile, resolveRunDirectory } from './run-directory-files.js';
import { readStoredStageListing } from './stage-directory-files.js';

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
  it('reads stage files and lists which exist', async () => {
    const { runDir } = await runDirectory();
    expect(readStageFile(runDir, 'plan', 'prompt.md')).toBe('the prompt');
    const listing = await readStoredStageListing(createFileRunStore({ logsRoot: runDir }), [
      'plan',
      'missing',
      '../x',
    ]);
    expect(listing.stages).toEqual([{ nodeId: 'plan', files: ['prompt.md'] }]);
  });

  it('refuses other names, traversal and symbolic links leaving the run directory', async () => {
    const { runsDir, runDir } = await runDirectory();
    await mkdir(join(runDir, 'evil'));
    await symlink(join(runsDir, 'secret.md'), join(runDir, 'evil', 'response.md'));
    expect(codeOf(() => readStageFile(runDir, 'plan', 'notes.txt'))).toBe('NOT_FOUND');
    expect(codeOf(() => readStageFile(runDir, '..', 'prompt.md'))).toBe('NOT_FOUND');
    expect(codeOf(() => readStageFile(runDir, 'plan/../..', 'secret.md'))).toBe('NOT_FOUND');
    expect(codeOf(() => readStageFile(runDir, 'evil', 'response.md'))).toBe('NOT_FOUND');
    expect(codeOf(() => readStageFile(runDir, 'plan', 'response.md'))).toBe('NOT_FOUND');
  });

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
