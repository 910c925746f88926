import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretMasker } from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createTranscriptWriter, TRANSCRIPT_FILE } from './stage-files.js';

describe('the agent transcript (transcript.jsonl)', () => {
  it('keeps a write into a directory that is gone from becoming an unhandled rejection; flush reports it', async () => {
    const gone = join(await mkdtemp(join(tmpdir(), 'agent-cli-gone-')), 'removed', 'stage');
    const transcript = createTranscriptWriter({ stageDir: gone, clock: createTestClock(), env: {} });
    transcript.write({ type: 'late', n: 1 });
    transcript.write({ type: 'late', n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(transcript.flush()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("masks the agent environment's secret-named values and the run's own secrets (--secret)", async () => {
    const stageDir = await mkdtemp(join(tmpdir(), 'agent-transcript-'));
    const transcript = createTranscriptWriter({
      stageDir,
      clock: createTestClock(),
      env: { GITHUB_TOKEN: 'gh-token-value-1', PATH: '/usr/bin' },
      secrets: createSecretMasker({ values: ['db-url-value-2'] }),
    });
    transcript.write({ type: 'tool_call', command: 'echo gh-token-value-1 db-url-value-2 /usr/bin' });
    await transcript.flush();
    const text = await readFile(join(stageDir, TRANSCRIPT_FILE), 'utf8');
    expect(JSON.parse(text).command).toBe('echo [REDACTED] [REDACTED] /usr/bin');
  });
});
