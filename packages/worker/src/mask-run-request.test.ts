import { describe, expect, it } from 'vitest';
import { RunRefusedError } from './errors/run-refused-error.js';
import { SecretInRequestError } from './errors/secret-in-request-error.js';
import { maskRunRequest, resolveSecretContext, secretVariableName } from './mask-run-request.js';
import { signRunRequest, verifyRunRequest } from './sign-run-request.js';

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe('maskRunRequest / resolveSecretContext (issue 34 "Workers" 4)', () => {
  it('stores values under secret-named keys masked, at any depth, and leaves the rest as it is', () => {
    const masked = maskRunRequest({
      source: 'digraph x {}',
      context: { deploy_token: TOKEN, cfg: { client_secret: 's3cr3t', region: 'eu' }, retries: 3 },
      options: { model: 'gpt-5' },
    });
    expect(masked.context).toEqual({
      deploy_token: '[REDACTED]',
      cfg: { client_secret: '[REDACTED]', region: 'eu' },
      retries: 3,
    });
    expect(masked.options).toEqual({ model: 'gpt-5' });
    expect(JSON.stringify(masked)).not.toContain(TOKEN);
  });

  it('refuses a secret inside a value whose key names none: a token shape, or a value the enqueuer knows', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const token = refusal(() =>
      maskRunRequest({ source: '', context: { repo_url: `https://${TOKEN}@example.com/r.git` } }),
    );
    expect(SecretInRequestError.isInstance(token)).toBe(true);
    expect((token as SecretInRequestError).path).toBe('context.repo_url');
    expect((token as Error).message).not.toContain(TOKEN);
    const known = refusal(() =>
      maskRunRequest({ source: '', options: { baseUrl: 'http://x/?key=known-value-1' } }, ['known-value-1']),
    );
    expect((known as SecretInRequestError).path).toBe('options.baseUrl');
  });

  it("takes masked values from the worker's environment, by the variable the key path names", () => {
    expect(secretVariableName(['deploy_token'])).toBe('DEPLOY_TOKEN');
    expect(secretVariableName(['cfg', 'client-secret'])).toBe('CFG_CLIENT_SECRET');
    const { context } = maskRunRequest({
      source: '',
      context: { deploy_token: TOKEN, cfg: { client_secret: 'x' }, note: '[REDACTED]' },
    });
    const resolved = resolveSecretContext(context, {
      DEPLOY_TOKEN: 'from-env',
      CFG_CLIENT_SECRET: 'env-secret',
    });
    expect(resolved.context).toEqual({
      deploy_token: 'from-env',
      cfg: { client_secret: 'env-secret' },
      note: '[REDACTED]',
    });
    expect(resolved.secretValues).toEqual(['from-env', 'env-secret']);
    let refused: unknown;
    try {
      resolveSecretContext(context, {});
    } catch (error) {
      refused = error;
    }
    expect(RunRefusedError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain(
      'deploy_token (DEPLOY_TOKEN), cfg.client_secret (CFG_CLIENT_SECRET)',
    );
  });
});

describe('signRunRequest / verifyRunRequest (issue 34 "Workers" 3)', () => {
  it('verifies the request it signed, and nothing changed or signed with another key', () => {
    const key = 'k'.repeat(32);
    const requestText = '{"source": "digraph x {}"}';
    const signature = signRunRequest({ key, runId: 'r1', requestText });
    expect(verifyRunRequest({ key, runId: 'r1', requestText, signature })).toBe(true);
    expect(verifyRunRequest({ key, runId: 'r2', requestText, signature })).toBe(false);
    expect(verifyRunRequest({ key, runId: 'r1', requestText: `${requestText} `, signature })).toBe(false);
    expect(verifyRunRequest({ key: 'x'.repeat(32), runId: 'r1', requestText, signature })).toBe(false);
    expect(verifyRunRequest({ key, runId: 'r1', requestText, signature: null })).toBe(false);
    expect(verifyRunRequest({ key, runId: 'r1', requestText, signature: 'zz' })).toBe(false);
  });
});
