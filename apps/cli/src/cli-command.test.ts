import { execFileSync } from 'node:child_process';
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
    expect(cliCommand({})).toBe('attractor');
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
