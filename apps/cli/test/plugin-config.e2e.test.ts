import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const PLUGIN = fileURLToPath(new URL('./fixtures/plugin/', import.meta.url));

describe('plug-ins from attractor.config.* / --config', () => {
  it('validate lints a plug-in handler’s attributes from its schema (config found in the working directory)', async () => {
    const clean = await attractor(['validate', 'release.dot'], { cwd: PLUGIN });
    expect(clean.exitCode, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain('unknown_attribute');
    expect(clean.stdout).not.toContain('type_known');

    const bad = await attractor(['validate', 'bad-region.dot'], { cwd: PLUGIN });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain(
      'error[attribute_type]: Node "ship" has region="mars", which its deploy handler does not accept: Invalid option: expected one of "eu"|"us".',
    );
  });

  it('run executes the plug-in handler (--config from another directory)', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(PLUGIN, 'release.dot'),
        '--simulate',
        '--config',
        join(PLUGIN, 'attractor.config.mjs'),
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(checkpoint.context['ship.region']).toBe('eu');
    const status = JSON.parse(await readFile(join(cwd, 'run', 'ship', 'status.json'), 'utf8')) as {
      notes: string;
    };
    expect(status.notes).toBe('deployed to eu');
  });

  it('reports a config that throws while loading with the file and the message; exit 2, no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'attractor.config.mjs'), "throw new Error('missing DEPLOY_TOKEN');\n");
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    const result = await attractor(['run', 'p.dot', '--simulate'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Config file attractor.config.mjs failed to load: missing DEPLOY_TOKEN');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
