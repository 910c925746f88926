import { describe, expect, it } from 'vitest';
import { formatSecretNodeWarning } from './format-secret-node-warning.js';

const nodeIds = ['start', 'deploy', 'deploy_prod', 'run_tests', 'exit'];

describe('formatSecretNodeWarning', () => {
  it('names a secret variable whose value is a node id, never the value', () => {
    expect(formatSecretNodeWarning({ env: { DEPLOY_TOKEN: 'deploy' }, nodeIds })).toBe(
      'warning: the value of DEPLOY_TOKEN is also a node id in this graph; that node shows as [REDACTED] on the console',
    );
  });

  it('names a secret variable whose value is part of a node id', () => {
    expect(formatSecretNodeWarning({ env: { API_KEY: 'tests' }, nodeIds })).toBe(
      'warning: the value of API_KEY is part of a node id in this graph; that id shows with [REDACTED] in it on the console',
    );
    expect(formatSecretNodeWarning({ env: { API_KEY: 'tests', DB_PASSWORD: '_prod' }, nodeIds })).toBe(
      'warning: the values of API_KEY, DB_PASSWORD are part of node ids in this graph; those ids show with [REDACTED] in them on the console',
    );
  });

  it('gives both lines when one value is a node id and another part of one', () => {
    const warning = formatSecretNodeWarning({ env: { DEPLOY_TOKEN: 'deploy', API_KEY: 'tests' }, nodeIds });
    expect(warning?.split('\n')).toEqual([
      'warning: the value of DEPLOY_TOKEN is also a node id in this graph; that node shows as [REDACTED] on the console',
      'warning: the value of API_KEY is part of a node id in this graph; that id shows with [REDACTED] in it on the console',
    ]);
  });

  it('says nothing for values the console does not mask or that are in no node id', () => {
    // Not a secret name and not named with --secret.
    expect(formatSecretNodeWarning({ env: { TARGET: 'deploy' }, nodeIds })).toBeUndefined();
    // Named with --secret: masked, so warned about.
    expect(
      formatSecretNodeWarning({ env: { TARGET: 'deploy' }, secretNames: ['TARGET'], nodeIds }),
    ).toContain('the value of TARGET is also a node id');
    expect(formatSecretNodeWarning({ env: { API_KEY: 'sk-unrelated-12345' }, nodeIds })).toBeUndefined();
  });
});
