import { describe, expect, it } from 'vitest';
import { formatResumeCommand } from './format-resume-command.js';

describe('formatResumeCommand', () => {
  it('is the bare resume command when every --answer was used', () => {
    expect(formatResumeCommand({ env: {}, runDir: 'runs/a b' })).toBe("attractor resume 'runs/a b'");
    expect(
      formatResumeCommand({
        env: { npm_command: 'exec', npm_config_user_agent: 'pnpm/10.0.0 npm/? node/v24.0.0 linux x64' },
        runDir: 'run',
        unusedAnswers: [],
      }),
    ).toBe('pnpm exec attractor resume run');
  });

  it('carries the unused answers, shell-quoted, in order', () => {
    expect(
      formatResumeCommand({ env: {}, runDir: 'run', unusedAnswers: ['A', "it's done; ship it", '$HOME'] }),
    ).toBe(`attractor resume run --answer A --answer 'it'\\''s done; ship it' --answer '$HOME'`);
  });

  it('never prints a secret answer: a variable reference for a variable value, else a placeholder', () => {
    const env = { DEPLOY_TOKEN: 'tok-0123456789', 'ODD-NAME_KEY': 'odd-secret-value' };
    const command = formatResumeCommand({
      env,
      runDir: 'run',
      unusedAnswers: ['tok-0123456789', 'sk-abcdefghijklmnopqrstuvwx', 'odd-secret-value', 'yes'],
      secretValues: ['tok-0123456789', 'odd-secret-value'],
    });
    // A token shape the masker knows without any variable, and a variable whose name a shell cannot expand.
    expect(command).toBe(
      'attractor resume run --answer "$DEPLOY_TOKEN" --answer <secret> --answer <secret> --answer yes',
    );
  });
});
