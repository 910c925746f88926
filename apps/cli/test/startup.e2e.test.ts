/**
 * What `attractor validate` loads (issue 8: validate starts fast because it loads only what it needs): the bundle
 * built by scripts/bundle-cli.mjs and nothing of the run stack. The modules are recorded by a module loader hook in
 * the real child process; no timing is asserted (speed lives in bench/cli-bench.mjs).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, PIPELINES, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

/** Runs the command with a loader hook that appends every module URL it loads to `<dir>/modules.txt`. */
async function loadedModules(args: readonly string[]): Promise<{ exitCode: number; modules: string[] }> {
  const dir = await temporaryDirectory('attractor-startup-');
  const log = join(dir, 'modules.txt');
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return nextLoad(url, context);
}`;
  const register = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const result = await execa(
    'node',
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BIN, ...args],
    { cwd: REPO_ROOT, env: childEnv(), extendEnv: false, reject: false, stdin: 'ignore' },
  );
  const modules = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
  return { exitCode: result.exitCode ?? -1, modules };
}

describe('attractor validate start-up', () => {
  it('loads the bundle and its validate chunk only: no @attractor package, Ohm or run-stack module from node_modules', async () => {
    const { exitCode, modules } = await loadedModules(['validate', join(PIPELINES, 'build-and-test.dot')]);
    expect(exitCode).toBe(0);
    const files = modules.filter((url) => url.startsWith('file:'));
    const cli = pathToFileURL(join(REPO_ROOT, 'apps', 'cli')).href;
    expect(files).toEqual([
      `${cli}/bin/attractor.js`,
      `${cli}/dist/attractor.mjs`,
      expect.stringMatching(/\/dist\/chunks\/validate-command-[\w-]+\.mjs$/),
    ]);
  });

  it('loads the unbundled run command, and the engine from node_modules, only for `run`', async () => {
    const dir = await temporaryDirectory('attractor-startup-run-');
    const { exitCode, modules } = await loadedModules([
      'run',
      join(PIPELINES, 'build-and-test.dot'),
      '--simulate',
      '--quiet',
      '--logs-dir',
      join(dir, 'run'),
      '--workdir',
      join(REPO_ROOT, 'examples', 'sample-project'),
    ]);
    expect(exitCode).toBe(0);
    expect(modules.some((url) => url.endsWith('/apps/cli/dist/commands/run-command.js'))).toBe(true);
    expect(modules.some((url) => url.endsWith('/packages/engine/dist/index.js'))).toBe(true);
    // One copy of the graph package: the one in node_modules, not the validate chunk's.
    expect(modules.some((url) => url.endsWith('/packages/graph/dist/index.js'))).toBe(true);
    expect(modules.some((url) => /\/dist\/chunks\/validate-command-/.test(url))).toBe(false);
  });
});
