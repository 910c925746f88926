import { describe, expect, it } from 'vitest';
import { InvalidStoreNameError } from './errors/invalid-store-name-error.js';
import { checkArtifactId, checkRelativeName, runIdOfLocation } from './store-names.js';

describe('checkRelativeName (names that cross the RunStore contract)', () => {
  it.each([
    'plan',
    'parallel/branches/a/review',
    '.hidden',
    '..dots',
    'dots..',
    'a.b/c..d/...',
    'node\\with\\backslash',
  ])('accepts stage path %j', (name) => {
    expect(checkRelativeName('stage path', name)).toBe(name);
  });

  it.each(['', '/abs', 'trailing/', 'a//b', '.', '..', './a', 'a/.', '../a', 'a/../b', 'a/..', 'nul\0'])(
    'refuses stage path %j',
    (name) => {
      expect(() => checkRelativeName('stage path', name)).toThrow(InvalidStoreNameError);
    },
  );

  it('refuses a backslash in a file name, not in a stage path', () => {
    expect(() => checkRelativeName('stage file name', 'a\\b.txt')).toThrow(InvalidStoreNameError);
    expect(checkRelativeName('stage file name', 'logs/response.md')).toBe('logs/response.md');
  });
});

describe('checkArtifactId', () => {
  it('accepts letters, digits, ".", "_" and "-", not "." or ".."', () => {
    expect(checkArtifactId('report-1.v2_final')).toBe('report-1.v2_final');
    for (const id of ['.', '..', 'a/b', '', 'spa ce'])
      expect(() => checkArtifactId(id)).toThrow(InvalidStoreNameError);
  });
});

describe('runIdOfLocation', () => {
  it.each([
    ['postgres://attractor@db:5432/runs#2026-12-02T10-00-00Z-demo', '2026-12-02T10-00-00Z-demo'],
    ['postgres://db/runs#demo-restart-1', 'demo-restart-1'],
    ['/work/.attractor/runs/demo-restart-2', 'demo-restart-2'],
    ['/work/.attractor/runs/demo/', 'demo'],
    ['C:\\runs\\demo', 'demo'],
    ['demo', 'demo'],
  ])('names the run of %j: %j', (location, runId) => {
    expect(runIdOfLocation(location)).toBe(runId);
  });
});
