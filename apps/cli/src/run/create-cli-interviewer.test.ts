import type { Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import type { RunDisplay } from '../display/run-display.js';
import { answerFromKey, createCliInterviewer } from './create-cli-interviewer.js';

const gate: Question = {
  id: 'approve:1',
  text: 'Publish these release notes?',
  type: 'multiple_choice',
  options: [
    { key: 'A', label: 'Approve and publish' },
    { key: 'R', label: 'Request changes' },
  ],
  stage: 'approve',
};

function recordingDisplay(log: string[]): RunDisplay {
  return {
    onEvent: () => {},
    pause: () => log.push('pause'),
    resume: () => log.push('resume'),
    notice: () => {},
    finish: () => {},
  };
}

describe('createCliInterviewer (spec §6)', () => {
  it('answers from the --answer queue in order, matching keys and labels case-insensitively', async () => {
    const interviewer = createCliInterviewer({
      answers: ['r', 'approve and publish'],
      autoApprove: false,
      display: recordingDisplay([]),
    });
    expect(interviewer.unusedAnswers()).toEqual(['r', 'approve and publish']);
    expect((await interviewer.ask(gate)).value).toBe('R');
    expect((await interviewer.ask(gate)).selectedOption).toEqual({ key: 'A', label: 'Approve and publish' });
    expect(interviewer.unusedAnswers()).toEqual([]);
  });

  it('falls back to auto-approve (first option) once the queue is empty', async () => {
    const interviewer = createCliInterviewer({
      answers: ['R'],
      autoApprove: true,
      display: recordingDisplay([]),
    });
    expect((await interviewer.ask(gate)).value).toBe('R');
    expect((await interviewer.ask(gate)).value).toBe('A');
  });

  it('pauses the display while the console interviewer asks', async () => {
    const log: string[] = [];
    const interviewer = createCliInterviewer({
      answers: [],
      autoApprove: false,
      display: recordingDisplay(log),
      console: {
        ask: async () => {
          log.push('ask');
          return { value: 'A' };
        },
      },
    });
    expect((await interviewer.ask(gate)).value).toBe('A');
    expect(log).toEqual(['pause', 'ask', 'resume']);
  });

  it('without answers, auto-approve or a terminal, fails with a message naming --answer and --auto-approve', async () => {
    const interviewer = createCliInterviewer({
      answers: [],
      autoApprove: false,
      display: recordingDisplay([]),
    });
    await expect(interviewer.ask(gate)).rejects.toThrow(
      'Human gate "approve" asks "Publish these release notes?" but nobody can answer: stdin is not a terminal. Pass --answer <key> (options: A, R) or --auto-approve.',
    );
  });
});

describe('answerFromKey', () => {
  it('lists the valid keys when an answer matches no option', () => {
    expect(() => answerFromKey(gate, 'X')).toThrow(
      '--answer "X" matches no option of the question "Publish these release notes?" (stage approve). Valid keys: A (Approve and publish), R (Request changes).',
    );
  });

  it('matches a key, a full label, a label without its accelerator prefix or a target id', () => {
    const release: Question = {
      ...gate,
      options: [
        { key: 'D', label: '[D] Discard' },
        { key: 'Y', label: '[Y] Yes' },
      ],
      metadata: { targets: ['discard_notes', 'publish'] },
    };
    const discard = { value: 'D', selectedOption: { key: 'D', label: '[D] Discard' } };
    const yes = { value: 'Y', selectedOption: { key: 'Y', label: '[Y] Yes' } };
    expect(answerFromKey(release, 'Discard')).toEqual(discard);
    expect(answerFromKey(release, ' [d] discard ')).toEqual(discard);
    expect(answerFromKey(release, 'discard_notes')).toEqual(discard);
    expect(answerFromKey(release, 'yes')).toEqual(yes);
    expect(answerFromKey(release, 'y')).toEqual(yes);
    expect(answerFromKey(release, 'PUBLISH')).toEqual(yes);
  });

  it('maps y/n to yes/no for yes/no questions and keeps free text', () => {
    expect(answerFromKey({ ...gate, type: 'yes_no', options: [] }, 'Y')).toEqual({ value: 'yes' });
    expect(answerFromKey({ ...gate, type: 'confirmation', options: [] }, 'no')).toEqual({ value: 'no' });
    expect(answerFromKey({ ...gate, type: 'freeform', options: [] }, 'ship it')).toEqual({
      value: 'ship it',
      text: 'ship it',
    });
  });
});
