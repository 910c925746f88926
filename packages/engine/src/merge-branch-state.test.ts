import { describe, expect, it } from 'vitest';
import { type BranchWrites, mergeBranchState } from './merge-branch-state.js';

describe('mergeBranchState (README "Typed data")', () => {
  it('merges declared fields by rule in branch order', () => {
    expect(
      mergeBranchState({
        rules: { findings: 'append', summary: 'replace', scores: 'merge_object' },
        base: { findings: ['base'], scores: { a: 1 } },
        branches: [
          { branch: 'b1', updates: { findings: ['base', 'x1', 'x2'], summary: 'one', scores: { b: 2 } } },
          { branch: 'b2', updates: { findings: 'y', summary: 'two', scores: { a: 3 } } },
          { branch: 'b3', updates: { findings: ['z'], last_stage: 'b3', 'tool.output': 'o' } },
        ],
      }),
    ).toEqual({
      ok: true,
      updates: {
        findings: ['base', 'x1', 'x2', 'y', 'z'],
        summary: 'two',
        scores: { a: 3, b: 2 },
        last_stage: 'b3',
        'tool.output': 'o',
      },
    });
  });

  it('fails on an undeclared key two branches wrote differently, naming the key and the branches', () => {
    const branches: BranchWrites[] = [
      { branch: 'lint', updates: { verdict: 'ok', last_stage: 'lint' } },
      { branch: 'test', updates: { note: 'n' } },
      { branch: 'review', updates: { verdict: 'bad', last_stage: 'review' } },
    ];
    expect(mergeBranchState({ rules: {}, base: {}, branches })).toEqual({
      ok: false,
      key: 'verdict',
      branches: ['lint', 'review'],
    });
    expect(
      mergeBranchState({
        rules: {},
        base: {},
        branches: [branches[0]!, { branch: 'x', updates: { verdict: 'ok' } }],
      }),
    ).toEqual({ ok: true, updates: { verdict: 'ok', last_stage: 'lint' } });
  });
});
