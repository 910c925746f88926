import { describe, expect, it } from 'vitest';
import { filterEnvironment, isSecretEnvName } from './filter-environment.js';

describe('filterEnvironment (coding-agent-loop-spec §4.2)', () => {
  it('drops every variable named like a secret and keeps the rest', () => {
    expect(
      filterEnvironment({
        PATH: '/usr/bin',
        HOME: '/home/me',
        OPENAI_API_KEY: 'sk-1',
        GITHUB_TOKEN: 'ghp',
        AWS_SECRET_ACCESS_KEY: 'aws',
        AWS_ACCESS_KEY_ID: 'id',
        DB_PASSWORD: 'pw',
        GOOGLE_APPLICATION_CREDENTIALS: '/c.json',
        npm_config_authtoken: 't',
        LANG: 'C.UTF-8',
        UNSET: undefined,
      }),
    ).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LANG: 'C.UTF-8' });
  });

  it('matches names case-insensitively anywhere in the name', () => {
    expect(['my_key', 'KeyChain', 'x_secret_y', 'passwordless'].every(isSecretEnvName)).toBe(true);
    expect(['PATH', 'TERM', 'SHELL', 'TMPDIR', 'GOPATH'].some(isSecretEnvName)).toBe(false);
  });
});
