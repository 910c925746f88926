import { describe, expect, it } from 'vitest';
import type { ParallelBranchResult } from './parallel-results.js';
import { selectBestCandidate } from './select-best-candidate.js';

function candidate(branch: string, status: string, score?: number): ParallelBranchResult {
  return {
    branch,
    status,
    notes: '',
    failure_reason: '',
    last_response: '',
    output: '',
    context_updates: score === undefined ? {} : { score },
  };
}

describe('selectBestCandidate (spec §4.9 heuristic_select)', () => {
  it('ranks by status, then score, then id', () => {
    expect(
      selectBestCandidate([
        candidate('a', 'fail'),
        candidate('b', 'partial_success'),
        candidate('c', 'success'),
      ])?.branch,
    ).toBe('c');
    expect(selectBestCandidate([candidate('a', 'success', 1), candidate('b', 'success', 5)])?.branch).toBe(
      'b',
    );
    expect(selectBestCandidate([candidate('z', 'success'), candidate('m', 'success')])?.branch).toBe('m');
    expect(selectBestCandidate([candidate('a', 'cancelled'), candidate('b', 'fail')])?.branch).toBe('b');
    expect(selectBestCandidate([])).toBeUndefined();
  });
});
