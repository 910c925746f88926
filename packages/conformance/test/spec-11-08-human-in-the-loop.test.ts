/** Spec §11.8 Human-in-the-Loop: one test per checkbox, with the built-in interviewers of @attractor/handlers. */
import { PassThrough } from 'node:stream';
import type { Question, QuestionType } from '@attractor/engine';
import {
  createAutoApproveInterviewer,
  createCallbackInterviewer,
  createConsoleInterviewer,
  createQueueInterviewer,
} from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { runDot } from './support/run-dot.js';

function question(type: QuestionType, options: [string, string][] = []): Question {
  return {
    id: `q-${type}`,
    text: `A ${type} question?`,
    type,
    options: options.map(([key, label]) => ({ key, label })),
    stage: 'gate',
  };
}

const GATE = `digraph G {
  start [shape=Mdiamond]; exit [shape=Msquare]
  gate [shape=hexagon, label="Deploy?"]
  deploy [prompt="d"]; hold [prompt="h"]
  start -> gate
  gate -> hold [label="[H] Hold"]
  gate -> deploy [label="[D] Deploy"]
  deploy -> exit; hold -> exit
}`;

describe('§11.8 Human-in-the-Loop', () => {
  it('Interviewer interface works: `ask(question) -> Answer`', async () => {
    const interviewer = createCallbackInterviewer({
      ask: (q) => ({ value: q.options[0]!.key, selectedOption: q.options[0]! }),
    });
    const answer = await interviewer.ask(
      question('multiple_choice', [
        ['a', 'Alpha'],
        ['b', 'Beta'],
      ]),
    );
    expect(answer).toEqual({ value: 'a', selectedOption: { key: 'a', label: 'Alpha' } });
  });

  it('Question supports types: YES_NO, MULTIPLE_CHOICE, FREEFORM, CONFIRMATION', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const console = createConsoleInterviewer({ input, output, allowNonInteractive: true });
    input.write('y\nb\nship it\nno\n');
    const answers = [
      await console.ask(question('yes_no')),
      await console.ask(
        question('multiple_choice', [
          ['a', 'Alpha'],
          ['b', 'Beta'],
        ]),
      ),
      await console.ask(question('freeform')),
      await console.ask(question('confirmation')),
    ];
    console.close();
    expect(answers).toEqual([
      { value: 'yes' },
      { value: 'b', selectedOption: { key: 'b', label: 'Beta' } },
      { value: 'ship it', text: 'ship it' },
      { value: 'no' },
    ]);
    // A human gate asks MULTIPLE_CHOICE by default and FREEFORM with human.input=text.
    const asked: QuestionType[] = [];
    const recorder = createCallbackInterviewer({
      ask: (q) => {
        asked.push(q.type);
        return q.type === 'freeform'
          ? { value: 'notes', text: 'notes' }
          : { value: q.options[0]!.key, selectedOption: q.options[0]! };
      },
    });
    await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        choose [shape=hexagon, label="Pick"]; note [shape=hexagon, label="Any notes?", human.input=text]
        start -> choose
        choose -> note [label="Go"]
        note -> exit
      }`,
      { interviewer: recorder },
    );
    expect(asked).toEqual(['multiple_choice', 'freeform']);
  });

  it('AutoApproveInterviewer always selects the first option (for automation/testing)', async () => {
    const { result } = await runDot(GATE, { interviewer: createAutoApproveInterviewer() });
    // The first edge in declaration order (docs/architecture.md "Human gates"), not the lexically first.
    expect(result.completedNodes).toEqual(['start', 'gate', 'hold', 'exit']);
    const answer = await createAutoApproveInterviewer().ask(question('yes_no'));
    expect(answer.value).toBe('yes');
  });

  it('ConsoleInterviewer prompts in terminal and reads user input', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    const interviewer = createConsoleInterviewer({ input, output, allowNonInteractive: true });
    // An unknown key is rejected and asked again; then the accelerator key picks "Deploy".
    input.write('x\nD\n');
    const { result } = await runDot(GATE, { interviewer });
    interviewer.close();
    expect(printed).toContain('Deploy?');
    expect(printed).toContain('[H] Hold');
    expect(printed).toContain('Unknown choice "x"');
    expect(result.completedNodes).toEqual(['start', 'gate', 'deploy', 'exit']);
    // Without a terminal (and without allowNonInteractive) it refuses with a fix instead of hanging.
    const headless = createConsoleInterviewer({ input: new PassThrough(), output: new PassThrough() });
    await expect(headless.ask(question('yes_no'))).rejects.toThrow(/--answer|--auto-approve/);
  });

  it('CallbackInterviewer delegates to a provided function', async () => {
    const seen: string[] = [];
    const interviewer = createCallbackInterviewer({
      ask: async (q) => {
        seen.push(q.text);
        const option = q.options.find((candidate) => candidate.label.includes('Deploy'))!;
        return { value: option.key, selectedOption: option };
      },
    });
    const { result } = await runDot(GATE, { interviewer });
    expect(seen).toEqual([expect.stringContaining('Deploy?')]);
    expect(result.completedNodes).toEqual(['start', 'gate', 'deploy', 'exit']);
  });

  it('QueueInterviewer reads from a pre-filled answer queue (for testing)', async () => {
    const interviewer = createQueueInterviewer({ answers: ['D', 'H'] });
    const first = await runDot(GATE, { interviewer });
    const second = await runDot(GATE, { interviewer });
    expect(first.result.completedNodes).toEqual(['start', 'gate', 'deploy', 'exit']);
    expect(second.result.completedNodes).toEqual(['start', 'gate', 'hold', 'exit']);
    // An empty queue without a fallback fails the gate with a reason rather than guessing.
    const third = await runDot(GATE, { interviewer });
    expect(third.result.status).toBe('fail');
  });
});
