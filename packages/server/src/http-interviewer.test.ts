import type { Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors/api-error.js';
import { createHttpInterviewer, toAnswer } from './http-interviewer.js';

const choice: Question = {
  id: 'approve:1:1',
  text: 'Approve?',
  type: 'multiple_choice',
  options: [
    { key: 'A', label: '[A] Approve' },
    { key: 'R', label: '[R] Revise' },
  ],
  stage: 'approve',
};

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (ApiError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('createHttpInterviewer (spec §6, §9.5)', () => {
  it('lists a question while it waits and resolves the ask with the HTTP answer', async () => {
    let changes = 0;
    const interviewer = createHttpInterviewer({
      now: () => '2026-01-01T00:00:00.000Z',
      onChange: () => changes++,
    });
    const asked = interviewer.ask(choice);
    expect(interviewer.pending()).toEqual([
      { id: 'approve:1:1', question: choice, askedAt: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(interviewer.answer('approve:1:1', { value: 'r' })).toEqual({
      value: 'R',
      selectedOption: { key: 'R', label: '[R] Revise' },
    });
    await expect(asked).resolves.toEqual({ value: 'R', selectedOption: { key: 'R', label: '[R] Revise' } });
    expect(interviewer.pending()).toEqual([]);
    expect(changes).toBe(2);
  });

  it('drops a question when its ask is aborted (timeout or cancel) and refuses late answers', async () => {
    const interviewer = createHttpInterviewer({ now: () => 't' });
    const controller = new AbortController();
    const asked = interviewer.ask(choice, { abortSignal: controller.signal });
    controller.abort(new Error('question no longer pending'));
    await expect(asked).rejects.toThrow('question no longer pending');
    expect(interviewer.pending()).toEqual([]);
    expect(refusal(() => interviewer.answer('approve:1:1', { value: 'A' })).code).toBe('QUESTION_NOT_FOUND');
  });

  it('keeps two questions with the same id apart', async () => {
    const interviewer = createHttpInterviewer({ now: () => 't' });
    const first = interviewer.ask(choice);
    const second = interviewer.ask(choice);
    expect(interviewer.pending().map((entry) => entry.id)).toEqual(['approve:1:1', 'approve:1:1#2']);
    interviewer.answer('approve:1:1#2', { value: 'A' });
    interviewer.answer('approve:1:1', { value: 'R' });
    expect((await first).value).toBe('R');
    expect((await second).value).toBe('A');
  });
});

describe('toAnswer (spec §6.3)', () => {
  it('matches an option by key, full label or label without its accelerator', () => {
    expect(toAnswer(choice, { value: 'A' }).value).toBe('A');
    expect(toAnswer(choice, { value: '[R] Revise' }).value).toBe('R');
    expect(toAnswer(choice, { value: 'approve' }).value).toBe('A');
  });

  it('refuses a value that is no option, listing the options', () => {
    const error = refusal(() => toAnswer(choice, { value: 'maybe' }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_ANSWER');
    expect(error.message).toBe(
      '"maybe" is not an option of question "approve:1:1". Send {"value": <key>} with one of: "A" ([A] Approve), "R" ([R] Revise).',
    );
  });

  it('takes yes/no for yes_no and confirmation questions', () => {
    const yesNo: Question = { ...choice, type: 'yes_no', options: [] };
    expect(toAnswer(yesNo, { value: 'Y' })).toEqual({ value: 'yes' });
    expect(toAnswer({ ...yesNo, type: 'confirmation' }, { value: 'no' })).toEqual({ value: 'no' });
    expect(refusal(() => toAnswer(yesNo, { value: 'perhaps' })).code).toBe('INVALID_ANSWER');
  });

  it('takes text for free-form questions and refuses empty text', () => {
    const freeform: Question = { ...choice, type: 'freeform', options: [] };
    expect(toAnswer(freeform, { text: 'Rename it' })).toEqual({ value: 'Rename it', text: 'Rename it' });
    expect(toAnswer(freeform, { value: 'Via value' })).toEqual({ value: 'Via value', text: 'Via value' });
    expect(refusal(() => toAnswer(freeform, { text: ' ' })).code).toBe('INVALID_ANSWER');
  });
});
