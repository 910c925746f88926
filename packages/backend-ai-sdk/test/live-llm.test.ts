/**
 * Opt-in live smoke test against a real LLM (CONTRIBUTING.md "Writing tests"): never runs in CI. Enable with
 * `ATTRACTOR_LIVE_LLM=1 OPENAI_API_KEY=... [OPENAI_BASE_URL=...] [ATTRACTOR_LIVE_MODEL=gpt-5-mini]`.
 */
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { createAiSdkBackend } from '../src/index.js';

const live = process.env.ATTRACTOR_LIVE_LLM === '1' && process.env.CI === undefined;

describe.skipIf(!live)('live LLM smoke test (spec §11.13)', () => {
  it('runs the smoke pipeline against a real model and leaves a hello world script', {
    timeout: 600_000,
  }, async () => {
    const dot = await readFile(new URL('./fixtures/smoke-pipeline.dot', import.meta.url), 'utf8');
    const { graph } = prepareGraph(dot);
    const root = await mkdtemp(join(tmpdir(), 'backend-live-'));
    const workdir = join(root, 'work');
    await mkdir(workdir);
    const baseURL = process.env.OPENAI_BASE_URL;
    const result = await runPipeline({
      graph: graph!,
      registry: createDefaultRegistry(),
      logsRoot: join(root, 'run'),
      workdir,
      backend: createAiSdkBackend({
        apiKey: process.env.OPENAI_API_KEY ?? '',
        defaultModel: process.env.ATTRACTOR_LIVE_MODEL ?? 'gpt-5-mini',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: workdir },
        ...(baseURL === undefined ? {} : { baseURL }),
      }),
    });
    expect(result.status, result.failureReason).toBe('success');
    expect(result.completedNodes).toContain('implement');
  });
});
