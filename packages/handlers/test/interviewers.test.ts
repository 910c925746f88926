import { PassThrough } from 'node:stream';
import type { Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { findQuestionOption } from '../src/human-gate-choices.js';
import { createAutoApproveInterviewer } from '../src/interviewers/auto-approve-interviewer.js';
import { createCallbackInterviewer } from '../src/interviewers/callback-interviewer.js';
import { createConsoleInterviewer } from '../src/interviewers/console-interviewer.js';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { createRecordingInterviewer } from '../src/interviewers/recording-interviewer.js';
import { delay } from './helpers.js';

const choice: Question = {
  id: 'approve:1:1',
  text: 'Ship it?',
  type: 'multiple_choice',
  options: [
    { key: 'A', label: '[A] Approve' },
    { key: 'R', label: '[R] Revise' },
  ],
  stage: 'approve',
};
const yesNo: Question = { id: 'q:1', text: 'Deploy?', type: 'yes_no', options: [], stage: 'deploy' };
const freeform: Question = { id: 'q:2', text: 'Why?', type: 'freeform', options: [], stage: 'why' };
const confirmation: Question = { ...yesNo, type: 'confirmation' };

describe('AutoApproveInterviewer (spec §6.4, §11.8)', () => {
  it('selects the first option, YES for yes/no and confirmation, and auto-approved text', async () => {
    const interviewer = createAutoApproveInterviewer();
    await expect(interviewer.ask(choice)).resolves.toEqual({ value: 'A', selectedOption: choice.options[0] });
    await expect(interviewer.ask(yesNo)).resolves.toEqual({ value: 'yes' });
    await expect(interviewer.ask(confirmation)).resolves.toEqual({ value: 'yes' });
    await expect(interviewer.ask(freeform)).resolves.toEqual({
      value: 'auto-approved',
      text: 'auto-approved',
    });
  });
});

describe('QueueInterviewer (spec §6.4, §11.8)', () => {
  it('answers from the queue in order, then SKIPPED', async () => {
    const interviewer = createQueueInterviewer({ answers: ['R', { value: 'yes' }] });
    await expect(interviewer.ask(choice)).resolves.toEqual({ value: 'R', text: 'R' });
    expect(interviewer.remaining()).toBe(1);
    await expect(interviewer.ask(yesNo)).resolves.toEqual({ value: 'yes' });
    await expect(interviewer.ask(choice)).resolves.toEqual({ value: 'skipped' });
  });

  it('asks the fallback once the queue is empty', async () => {
    const interviewer = createQueueInterviewer({ answers: ['R'], fallback: createAutoApproveInterviewer() });
    await interviewer.ask(choice);
    await expect(interviewer.ask(choice)).resolves.toMatchObject({ value: 'A' });
  });
});

describe('CallbackInterviewer (spec §6.4, §11.8)', () => {
  it('delegates to the function with the question and the signal', async () => {
    const seen: string[] = [];
    const controller = new AbortController();
    const interviewer = createCallbackInterviewer({
      ask: (question, options) => {
        seen.push(`${question.stage}:${options.abortSignal === controller.signal}`);
        return { value: 'R' };
      },
    });
    await expect(interviewer.ask(choice, { abortSignal: controller.signal })).resolves.toEqual({
      value: 'R',
    });
    expect(seen).toEqual(['approve:true']);
  });
});

describe('RecordingInterviewer (spec §6.4)', () => {
  it('records every question with its answer', async () => {
    const interviewer = createRecordingInterviewer(createQueueInterviewer({ answers: ['R', 'no'] }));
    await interviewer.ask(choice);
    await interviewer.ask(yesNo);
    expect(interviewer.recordings.map((entry) => [entry.question.id, entry.answer.value])).toEqual([
      ['approve:1:1', 'R'],
      ['q:1', 'no'],
    ]);
  });
});

function terminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  return { input, output, printed: () => printed };
}

describe('ConsoleInterviewer (spec §6.4, §11.8)', () => {
  it('prompts with the option keys and reads the choice', async () => {
    const io = terminal();
    const interviewer = createConsoleInterviewer({ input: io.input, output: io.output });
    const answer = interviewer.ask(choice);
    await delay(10);
    io.input.write('r\n');
    await expect(answer).resolves.toEqual({ value: 'R', selectedOption: { key: 'R', label: '[R] Revise' } });
    expect(io.printed()).toContain('[?] Ship it?\n  [A] Approve\n  [R] Revise\nSelect: ');
    interviewer.close();
  });

  it('prints the key before a label only when the label does not already carry it', async () => {
    const io = terminal();
    const interviewer = createConsoleInterviewer({ input: io.input, output: io.output });
    const mixed: Question = {
      ...choice,
      options: [
        { key: 'P', label: 'P) Publish' },
        { key: 'D', label: 'D - Discard' },
        { key: 'Y', label: 'Yes' },
        { key: 'X', label: '[Z] Odd' },
      ],
    };
    const answer = interviewer.ask(mixed);
    await delay(10);
    io.input.write('discard\n');
    await expect(answer).resolves.toEqual({ value: 'D', selectedOption: { key: 'D', label: 'D - Discard' } });
    expect(io.printed()).toContain('  P) Publish\n  D - Discard\n  [Y] Yes\n  [X] [Z] Odd\nSelect: ');
    interviewer.close();
  });

  it('asks again after an unknown choice, and reads yes/no and free text', async () => {
    const io = terminal();
    const interviewer = createConsoleInterviewer({ input: io.input, output: io.output });
    io.input.write('x\nA\ny\nmake it shorter\n');
    await expect(interviewer.ask(choice)).resolves.toMatchObject({ value: 'A' });
    expect(io.printed()).toContain('Unknown choice "x". Enter one of: A, R');
    await expect(interviewer.ask(yesNo)).resolves.toEqual({ value: 'yes' });
    await expect(interviewer.ask(freeform)).resolves.toEqual({
      value: 'make it shorter',
      text: 'make it shorter',
    });
    interviewer.close();
  });

  it('shows the timeout and stops waiting when the engine aborts the question', async () => {
    const io = terminal();
    const interviewer = createConsoleInterviewer({ input: io.input, output: io.output });
    const controller = new AbortController();
    const answer = interviewer.ask({ ...choice, timeoutMs: 600_000 }, { abortSignal: controller.signal });
    await delay(10);
    controller.abort(new Error('timed out'));
    await expect(answer).rejects.toThrow('timed out');
    expect(io.printed()).toContain('(times out in 10m)');
    interviewer.close();
  });

  it('rejects with a clear error when stdin is not a terminal', async () => {
    const interviewer = createConsoleInterviewer({ input: new PassThrough(), output: new PassThrough() });
    await expect(interviewer.ask(choice)).rejects.toThrow(
      'Cannot ask "Ship it?" (node approve): standard input is not an interactive terminal. Queue the answers instead',
    );
  });

  it('reads piped answers when allowed', async () => {
    const input = new PassThrough();
    const interviewer = createConsoleInterviewer({
      input,
      output: new PassThrough(),
      allowNonInteractive: true,
    });
    input.end('R\n');
    await expect(interviewer.ask(choice)).resolves.toMatchObject({ value: 'R' });
    await expect(interviewer.ask(choice)).rejects.toThrow('Standard input ended before an answer');
  });
});

describe('findQuestionOption (spec §4.6, §6)', () => {
  const gate: Question = {
    ...choice,
    options: [
      { key: 'D', label: '[D] Discard' },
      { key: 'Y', label: '[Y] Yes' },
      { key: 'S', label: 'S) Ship it' },
      { key: 'L', label: 'L - Later' },
    ],
    metadata: { targets: ['trash', 'publish', 'ship_node', 'backlog'] },
  };

  it.each([
    ['d', 'D'],
    [' Y ', 'Y'],
    ['[D] Discard', 'D'],
    ['Discard', 'D'],
    ['yes', 'Y'],
    ['SHIP IT', 'S'],
    ['later', 'L'],
    ['l - later', 'L'],
    ['publish', 'Y'],
    ['ship_node', 'S'],
  ])('matches %j to option %s', (text, key) => {
    expect(findQuestionOption(gate, text)?.key).toBe(key);
  });

  it('prefers a key over a label or target, and matches nothing for empty or unknown text', () => {
    const clash: Question = {
      ...choice,
      options: [
        { key: 'N', label: 'No way' },
        { key: 'O', label: 'n' },
      ],
    };
    expect(findQuestionOption(clash, 'n')?.key).toBe('N');
    expect(findQuestionOption(gate, '   ')).toBeUndefined();
    expect(findQuestionOption(gate, 'maybe')).toBeUndefined();
    expect(findQuestionOption({ ...gate, metadata: {} }, 'trash')).toBeUndefined();
  });
});
