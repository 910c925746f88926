import { describe, expect, it } from 'vitest';
import { createSecretMasker, isSecretKey, REDACTED, redactSecrets } from './redact-secrets.js';

describe('redactSecrets (docs/architecture.md "Secrets")', () => {
  it.each(['OPENAI_API_KEY', 'apiKey', 'github.token', 'AWS_SECRET_ACCESS_KEY', 'password', 'client_secret'])(
    'treats %s as secret',
    (key) => {
      expect(isSecretKey(key)).toBe(true);
    },
  );

  it.each(['key', 'inputTokens', 'monkey', 'keyboard', 'threadKey', 'label'])(
    'does not treat %s as secret',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  it('redacts string values under secret keys at any depth, and known secret values anywhere', () => {
    const event = {
      type: 'agent.tool_call.started',
      arguments: { env: { OPENAI_API_KEY: 'sk-live-123456' }, command: 'curl -H "Bearer sk-other-999"' },
      options: [{ key: 'Y', label: 'Yes' }],
    };
    const redacted = redactSecrets(event, ['sk-other-999']);
    expect(redacted.arguments.env.OPENAI_API_KEY).toBe(REDACTED);
    expect(redacted.arguments.command).toBe(`curl -H "Bearer ${REDACTED}"`);
    expect(redacted.options[0]!.key).toBe('Y');
    expect(event.arguments.env.OPENAI_API_KEY).toBe('sk-live-123456');
  });

  it('masks everything under a secret key at any depth: strings, numbers, and the leaves of objects and arrays (issue 34 §12)', () => {
    const context = {
      cfg: { client_secret: 'hunter2-client', region: 'eu' },
      credentials: { user: 'alice', pass: 'pw-1', list: ['pw-2', { deep: 'pw-3' }], pin: 4321, on: true },
      api_key: 987654321,
      steps: [{ name: 'a', deploy_token: { value: 'tok-4' } }],
    };
    const masked = redactSecrets(context);
    expect(masked).toEqual({
      cfg: { client_secret: REDACTED, region: 'eu' },
      credentials: {
        user: REDACTED,
        pass: REDACTED,
        list: [REDACTED, { deep: REDACTED }],
        pin: REDACTED,
        on: true,
      },
      api_key: REDACTED,
      steps: [{ name: 'a', deploy_token: { value: REDACTED } }],
    });
    expect(context.credentials.pass).toBe('pw-1');
  });

  it('masks the value of a secret-named key in JSON text (issue 34 §12)', () => {
    const masker = createSecretMasker();
    expect(masker.maskText('cfg: {"client_secret":"hunter2-client","region":"eu"}')).toBe(
      `cfg: {"client_secret":"${REDACTED}","region":"eu"}`,
    );
    expect(masker.maskText('{ "apiKey" : "k\\"q", "pin_password": 12345678, "n": 1 }')).toBe(
      `{ "apiKey" : "${REDACTED}", "pin_password": "${REDACTED}", "n": 1 }`,
    );
    expect(masker.maskText('the "key": "Y" and "token" alone')).toBe('the "key": "Y" and "token" alone');
  });

  it('masks the shortest token of each shape standing alone, and leaves one character less alone', () => {
    const masker = createSecretMasker();
    const shortest = [
      'xoxb-0123456789',
      'AKIA0123456789ABCDEF',
      `sk-${'a'.repeat(16)}`,
      `ghp_${'a'.repeat(20)}`,
      `github_pat_${'a'.repeat(20)}`,
    ];
    for (const token of shortest) {
      expect(masker.maskText(token)).toBe(REDACTED);
      expect(masker.maskText(token.slice(0, -1))).toBe(token.slice(0, -1));
    }
  });

  it('returns the same object when nothing is secret', () => {
    const value = { a: 1, b: ['x'] };
    expect(redactSecrets(value)).toBe(value);
  });

  it('masks the same text the same way every time, short (remembered) or long, and token shapes only', () => {
    const masker = createSecretMasker({ values: ['s3cr3t-value'] });
    const long = `${'x'.repeat(300)} s3cr3t-value ghp_${'a'.repeat(24)}`;
    for (let round = 0; round < 3; round++) {
      expect(masker.maskText('use s3cr3t-value')).toBe(`use ${REDACTED}`);
      expect(masker.maskText(long)).toBe(`${'x'.repeat(300)} ${REDACTED} ${REDACTED}`);
      expect(masker.maskText(`key sk-${'b'.repeat(20)}`)).toBe(`key ${REDACTED}`);
      expect(masker.maskText('ghost xoxo skate AKIAshort')).toBe('ghost xoxo skate AKIAshort');
      expect(masker.mask({ nodeId: 'plan', note: 'with s3cr3t-value' })).toEqual({
        nodeId: 'plan',
        note: `with ${REDACTED}`,
      });
    }
  });
});
