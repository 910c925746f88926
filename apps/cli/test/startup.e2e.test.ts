/**
 * What `attractor run` loads: `validate` runs from the bundle of scripts/bundle-cli.mjs (validate.e2e.test.ts checks
 * it loads nothing else), while `run` loads its unbundled modules and the packages from node_modules, so a run holds
 * one copy of each package. Modules are recorded by the load-trace fixture in the real child process.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, FIXTURES, PIPELINES, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

describe('attractor run start-up', () => {
  it('loads the unbundled run command and the engine and graph from node_modules, not the validate chunk', async () => {
    const dir = await temporaryDirectory('attractor-startup-run-');
    const result = await execa(
      'node',
      [
        '--import',
        join(FIXTURES, 'load-trace', 'register.mjs'),
        BIN,
        'run',
        join(PIPELINES, 'build-and-test.dot'),
        '--simulate',
        '--quiet',
        '--logs-dir',
        join(dir, 'run'),
        '--workdir',
        join(REPO_ROOT, 'examples', 'sample-project'),
      ],
      { env: childEnv(), extendEnv: false, reject: false, stdin: 'ignore' },
    );
    expect(result.exitCode).toBe(0);
    const loaded = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('LOADED '))
      .map((line) => line.slice('LOADED '.length));
    expect(loaded.some((url) => url.endsWith('/apps/cli/dist/commands/run-command.js'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/packages/engine/dist/index.js'))).toBe(true);
    // One copy of the graph package: the one in node_modules, not the validate chunk's.
    expect(loaded.some((url) => url.endsWith('/packages/graph/dist/index.js'))).toBe(true);
    expect(loaded.some((url) => /\/dist\/chunks\/validate-command-/.test(url))).toBe(false);
    // Commander is bundled; the run command's modules do not load a second copy.
    expect(loaded.filter((url) => url.includes('/commander/'))).toEqual([]);
    // Without --otel a run loads no OpenTelemetry module (issue 32: off by default costs nothing).
    expect(loaded.filter((url) => /\/@opentelemetry\/|\/@ai-sdk\/otel\//.test(url))).toEqual([]);
  });
});
