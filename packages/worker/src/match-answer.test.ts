import type { Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { matchAnswer } from './match-answer.js';

// A gate as the wait.human handler asks it: labels keep their accelerator prefix, targets ride in the metadata.
const gate: Question = {
  id: 'q1',
  stage: 'review',
  text: 'Ship it?',
  type: 'multiple_choice',
  options: [
    { key: 'A', label: '[A] Approve' },
    { key: 'R', label: 'R) Request changes' },
    { key: 'S', label: 'Skip review' },
  ],
  metadata: { targets: ['ship', 'fix', 'done'] },
};

const selected = (text: string) => {
  const match = matchAnswer(gate, text);
  return 'answer' in match ? match.answer.selectedOption?.key : match.error;
};

describe('matchAnswer: a key, a label or a target node, as the README documents (issue 34 §6)', () => {
  it('takes an accelerator key in any case', () => {
    expect(selected('a')).toBe('A');
    expect(selected(' R ')).toBe('R');
  });

  it('takes a label with or without its accelerator prefix, in any case', () => {
    expect(selected('Approve')).toBe('A');
    expect(selected('approve')).toBe('A');
    expect(selected('[A] Approve')).toBe('A');
    expect(selected('request changes')).toBe('R');
    expect(selected('Skip Review')).toBe('S');
  });

  it('takes a target node id', () => {
    expect(selected('fix')).toBe('R');
    expect(selected('DONE')).toBe('S');
  });

  it('prefers a key over a label and a label over a target, like a local --answer', () => {
    const tricky: Question = {
      ...gate,
      options: [
        { key: 'F', label: 'Fix' },
        { key: 'X', label: 'f' },
      ],
      metadata: { targets: ['x', 'fix'] },
    };
    const pick = (text: string) => {
      const match = matchAnswer(tricky, text);
      return 'answer' in match ? match.answer.selectedOption?.key : undefined;
    };
    expect(pick('f')).toBe('F');
    expect(pick('fix')).toBe('F');
    expect(pick('x')).toBe('X');
  });

  it('names the options when the text matches none', () => {
    expect(selected('nope')).toBe(
      '"nope" is none of the options: A ([A] Approve), R (R) Request changes), S (Skip review)',
    );
  });
});
