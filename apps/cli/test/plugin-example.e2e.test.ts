/**
 * The README's plug-in example (examples/plugin): its own attractor.config.mjs, importing `@attractor/engine` and
 * `zod` as a project of its own does, used by the real CLI from that folder.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'plugin');

describe('examples/plugin (README "Plug-ins")', () => {
  it('validate lints the deploy node with the handler’s schema', async () => {
    const result = await attractor(['validate', 'release.dot'], { cwd: EXAMPLE });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).not.toContain('unknown_attribute');
    expect(result.stdout).toContain('✔ release.dot: valid');
  });

  it('run goes through the config’s backend, interviewer and handler', async () => {
    const logsRoot = join(await temporaryDirectory(), 'run');
    const result = await attractor(['run', 'release.dot', '--logs-dir', logsRoot], { cwd: EXAMPLE });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(logsRoot, 'notes', 'response.md'), 'utf8')).toBe(
      'Draft: Write the release notes for Ship version 2.0',
    );
    const checkpoint = JSON.parse(await readFile(join(logsRoot, 'checkpoint.json'), 'utf8')) as {
      completed_nodes: string[];
      context: Record<string, unknown>;
    };
    expect(checkpoint.completed_nodes).toEqual(['start', 'notes', 'approve', 'ship', 'exit']);
    expect(checkpoint.context['ship.region']).toBe('eu');
    expect(checkpoint.context['ship.replicas']).toBe(3);
  });
});
