import { describe, expect, it } from 'vitest';
import { joinSettled, joinStatus, requiredSuccesses } from './join-policy.js';

describe('join policies (spec §4.8, docs/architecture.md "Parallel results")', () => {
  it('wait_all: all succeed -> success, some fail -> partial_success, all fail -> fail', () => {
    expect(joinStatus({ policy: 'wait_all', total: 3, succeeded: 3, failed: 0 })).toBe('success');
    expect(joinStatus({ policy: 'wait_all', total: 3, succeeded: 1, failed: 2 })).toBe('partial_success');
    expect(joinStatus({ policy: 'wait_all', total: 3, succeeded: 0, failed: 3 })).toBe('fail');
  });

  it('counts the successes each policy needs', () => {
    expect(requiredSuccesses({ policy: 'first_success', total: 5 })).toBe(1);
    expect(requiredSuccesses({ policy: 'k_of_n', total: 5, k: 3 })).toBe(3);
    expect(requiredSuccesses({ policy: 'k_of_n', total: 2, k: 3 })).toBe(2);
    expect(requiredSuccesses({ policy: 'quorum', total: 4 })).toBe(3);
    expect(requiredSuccesses({ policy: 'quorum', total: 5 })).toBe(3);
  });

  it('settles early once the outcome is decided, except wait_all', () => {
    expect(joinSettled({ policy: 'first_success', total: 3, succeeded: 1, failed: 0 })).toBe(true);
    expect(joinSettled({ policy: 'k_of_n', total: 4, k: 2, succeeded: 1, failed: 2 })).toBe(false);
    expect(joinSettled({ policy: 'k_of_n', total: 4, k: 2, succeeded: 1, failed: 3 })).toBe(true);
    expect(joinSettled({ policy: 'quorum', total: 3, succeeded: 0, failed: 2 })).toBe(true);
    expect(joinSettled({ policy: 'wait_all', total: 3, succeeded: 2, failed: 0 })).toBe(false);
  });

  it('k_of_n and quorum fail without enough successes', () => {
    expect(joinStatus({ policy: 'k_of_n', total: 3, k: 2, succeeded: 1, failed: 2 })).toBe('fail');
    expect(joinStatus({ policy: 'quorum', total: 4, succeeded: 2, failed: 2 })).toBe('fail');
    expect(joinStatus({ policy: 'quorum', total: 4, succeeded: 3, failed: 1 })).toBe('success');
  });
});
