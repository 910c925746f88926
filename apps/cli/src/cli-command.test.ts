import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliCommand } from './cli-command.js';

describe('cliCommand', () => {
  it('spells the command as pnpm exec, npx or plain attractor from the environment', () => {
    const pnpmAgent = 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64';
    expect(cliCommand({ npm_command: 'exec', npm_config_user_agent: pnpmAgent })).toBe('pnpm exec attractor');
    expect(
      cliCommand({ npm_command: 'exec', npm_config_user_agent: 'npm/10.8.2 node/v20.20.2 linux x64' }),
    ).toBe('npx attractor');
    expect(cliCommand({ npm_command: 'run-script', npm_config_user_agent: pnpmAgent })).toBe('attractor');
    expect(cliCommand({ npm_command: 'exec', npm_config_user_agent: 'yarn/4.0.0' })).toBe('attractor');
    expect(cliCommand({}, '/usr/local/bin/attractor')).toBe('attractor');
    expect(cliCommand({}, undefined)).toBe('attractor');
  });

  it('spells the command node <path>/attractor.js when the script was started by its path', () => {
    expect(cliCommand({}, '/opt/attractor/apps/cli/bin/attractor.js')).toBe(
      'node /opt/attractor/apps/cli/bin/attractor.js',
    );
    expect(cliCommand({}, '/home/me/my tools/attractor/apps/cli/bin/attractor.js')).toBe(
      "node '/home/me/my tools/attractor/apps/cli/bin/attractor.js'",
    );
    // A package manager's exec still wins: its own shim starts the script by path.
    const pnpmExec = {
      npm_command: 'exec',
      npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64',
    };
    expect(cliCommand(pnpmExec, '/repo/node_modules/@attractor/cli/bin/attractor.js')).toBe(
      'pnpm exec attractor',
    );
  });

  it('prints hints a user can paste when the CLI is started as node <path>/attractor.js', () => {
    const script = fileURLToPath(new URL('../bin/attractor.js', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'attractor-cli-command-'));
    writeFileSync(join(dir, 'broken.dot'), 'digraph G { start [shape=Mdiamond]; a; start -> a }\n');
    const { npm_command: _command, npm_config_user_agent: _agent, ...env } = process.env;
    const result = spawnSync(process.execPath, [script, 'run', 'broken.dot', '--simulate'], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(`${result.stdout}${result.stderr}`).toContain(
      `check again with \`node ${script} validate broken.dot\``,
    );
  });

  it('recognises the environment a real `pnpm exec` sets', () => {
    const { npm_command: _command, npm_config_user_agent: _agent, ...base } = process.env;
    const printed = execFileSync(
      'pnpm',
      ['exec', 'node', '-e', 'process.stdout.write(JSON.stringify(process.env))'],
      { env: base, encoding: 'utf8' },
    );
    const env = JSON.parse(printed) as Record<string, string | undefined>;
    expect(cliCommand(env)).toBe('pnpm exec attractor');
  });
});
