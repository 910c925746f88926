import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runDraftPipeline } from './run-draft-pipeline.js';

describe('the README embedding example', () => {
  it('runs the pipeline with the custom word_count handler', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const logsRoot = join(await mkdtemp(join(tmpdir(), 'attractor-programmatic-')), 'run');
    const result = await runDraftPipeline(logsRoot);
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'write', 'count', 'exit']);
    // "[Simulated] Response for stage: write" has five words.
    expect(result.context.get('count.words')).toBe(5);
    expect(log.mock.calls.map((call) => call[0])).toEqual([
      'start: success',
      'write: success',
      'count: success',
      'exit: success',
    ]);
    log.mockRestore();
  });

  it('is the code the root README shows, character for character', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    const code = await readFile(new URL('./run-draft-pipeline.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
  });
});
