import { describe, expect, it } from 'vitest';
import { childRunKey, parseChildRunPath, relateToChildRun } from './child-run-path.js';

describe('parseChildRunPath', () => {
  it.each([
    ['checks/child', 'child', ['child:checks'], 'checks'],
    ['checks/child-2', 'child-2', ['child:checks'], 'checks'],
    ['fan/branches/a/checks/child', 'child', ['a', 'child:checks'], 'checks'],
    ['fan/branches/a/inner/branches/b.1/lint/child', 'child', ['a', 'b.1', 'child:lint'], 'lint'],
    ['checks/visits/1/child', 'child', ['child:checks'], 'checks'],
    ['checks/child/review/child', 'child', ['child:checks', 'child:review'], 'review'],
    [
      'supervise/child/fan/branches/x/work/child-3',
      'child-3',
      ['child:supervise', 'x', 'child:work'],
      'work',
    ],
  ])('parses %s', (path, runId, basePath, parentNode) => {
    expect(parseChildRunPath(path)).toEqual({ path, runId, basePath, parentNode });
  });

  it.each([
    'checks',
    'checks/child/',
    '../checks/child',
    'checks/../child',
    'fan/branches/../checks/child',
    'fan/branches/a/checks',
    'checks/visits/0/child',
    'checks/visits/1',
    'checks/visits/1/prompt.md',
    'checks/child/..',
    'checks/status.json',
    '/etc/child',
    '',
  ])('refuses %j', (path) => {
    expect(parseChildRunPath(path)).toBeUndefined();
  });
});

describe('relateToChildRun', () => {
  const child = { runId: 'child', basePath: ['a', 'child:checks'] };

  it('tells the child own events (its branches too) from its children and from other runs', () => {
    expect(relateToChildRun({ runId: 'child', branchPath: ['a', 'child:checks'] }, child)).toEqual({
      kind: 'own',
      relativePath: [],
    });
    expect(relateToChildRun({ runId: 'child', branchPath: ['a', 'child:checks', 'x'] }, child)).toEqual({
      kind: 'own',
      relativePath: ['x'],
    });
    expect(
      relateToChildRun({ runId: 'child', branchPath: ['a', 'child:checks', 'child:review'] }, child),
    ).toEqual({ kind: 'descendant', relativePath: ['child:review'] });
    // A later attempt's child under the same node, the parent's own events, another branch's child.
    expect(relateToChildRun({ runId: 'child-2', branchPath: ['a', 'child:checks'] }, child)).toBeUndefined();
    expect(relateToChildRun({ runId: 'top', branchPath: ['a'] }, child)).toBeUndefined();
    expect(relateToChildRun({ runId: 'child', branchPath: ['b', 'child:checks'] }, child)).toBeUndefined();
  });

  it('keys a child by its run id and the branch path up to its last child segment', () => {
    expect(childRunKey('child', ['a', 'child:checks', 'x'])).toBe('child a/child:checks');
    expect(childRunKey('child', ['a', 'child:checks'])).toBe('child a/child:checks');
    expect(childRunKey('top', ['a'])).toBeUndefined();
    expect(childRunKey('top', undefined)).toBeUndefined();
  });
});
