import { join } from 'node:path';
import type { Answer, Interviewer, Question } from '@attractor/engine';
import { createScriptedInterviewer, createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { readJson, runDot } from './helpers.js';

const gate = (attributes = '') => `digraph G {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [shape=hexagon, label="Ship it?"${attributes}]
  publish [prompt="publish"]
  revise [prompt="revise"]
  start -> approve
  approve -> publish [label="[A] Approve"]
  approve -> revise [label="R) Request changes"]
  approve -> exit [label="D - Discard"]
  revise -> exit
  publish -> exit
}`;

function recorder(answers: (Answer | string)[]): Interviewer & { questions: Question[] } {
  return createScriptedInterviewer(answers);
}

describe('wait.human handler (spec §4.6, §11.6, §11.8)', () => {
  it('presents the outgoing edge labels as a multiple-choice question with accelerator keys', async () => {
    const interviewer = recorder(['A']);
    await runDot(gate(), { interviewer, backend: createSimulationBackend() });
    const question = interviewer.questions[0]!;
    expect(question).toMatchObject({ text: 'Ship it?', type: 'multiple_choice', stage: 'approve' });
    expect(question.options).toEqual([
      { key: 'A', label: '[A] Approve' },
      { key: 'R', label: 'R) Request changes' },
      { key: 'D', label: 'D - Discard' },
    ]);
  });

  it('routes on the selection and returns the label as preferred_label and the target as suggested_next_ids', async () => {
    const { result } = await runDot(gate(), {
      interviewer: recorder(['R']),
      backend: createSimulationBackend(),
    });
    expect(result.completedNodes).toEqual(['start', 'approve', 'revise', 'exit']);
    expect(result.nodeOutcomes.approve).toMatchObject({
      status: 'success',
      preferredLabel: 'R) Request changes',
      suggestedNextIds: ['revise'],
      // The label carries its key already: the notes name it once.
      notes: 'Selected R) Request changes -> revise',
    });
    expect(result.context.get('human.gate.selected')).toBe('R');
    expect(result.context.get('human.gate.label')).toBe('R) Request changes');
  });

  it('names the selected option with its accelerator key once in the notes', async () => {
    const bracketed = await runDot(gate(), {
      interviewer: recorder(['A']),
      backend: createSimulationBackend(),
    });
    expect(bracketed.result.nodeOutcomes.approve?.notes).toBe('Selected [A] Approve -> publish');
    const plain = await runDot(
      `digraph G {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  ask [shape=hexagon, label="Ship?"]
  start -> ask
  ask -> exit [label="Yes"]
  ask -> exit [label="No"]
}`,
      { interviewer: recorder(['Y']), backend: createSimulationBackend() },
    );
    expect(plain.result.nodeOutcomes.ask?.notes).toBe('Selected [Y] Yes -> exit');
  });

  it('accepts an answer naming the label or the target node id', async () => {
    const byLabel = await runDot(gate(), {
      interviewer: recorder(['discard']),
      backend: createSimulationBackend(),
    });
    expect(byLabel.result.completedNodes).toEqual(['start', 'approve', 'exit']);
    const byTarget = await runDot(gate(), {
      interviewer: recorder(['publish']),
      backend: createSimulationBackend(),
    });
    expect(byTarget.result.completedNodes).toEqual(['start', 'approve', 'publish', 'exit']);
  });

  it('fails when the human skips', async () => {
    const { result } = await runDot(gate(), { interviewer: createQueueInterviewer({ answers: [] }) });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.approve).toMatchObject({
      status: 'fail',
      failureReason: 'human skipped interaction',
    });
  });

  it('fails naming the options when the answer matches none', async () => {
    const { result } = await runDot(gate(), { interviewer: recorder(['Z']) });
    expect(result.nodeOutcomes.approve?.failureReason).toBe(
      'answer "Z" matches no option of human gate "approve" ([A] Approve -> publish, R) Request changes -> revise, D - Discard -> exit); answer with a key, a label or a target node id',
    );
  });

  it('times out to human.default_choice (a target id) and uses the timeout as the interview timeout', async () => {
    const interviewer = recorder(['never']);
    const clock = createTestClock();
    const { result, events } = await runDot(gate(', timeout="10m", human.default_choice="revise"'), {
      interviewer,
      clock,
      backend: createSimulationBackend(),
    });
    expect(interviewer.questions[0]?.timeoutMs).toBe(600_000);
    expect(result.completedNodes).toEqual(['start', 'approve', 'revise', 'exit']);
    const timeout = events.find((event) => event.type === 'interview.timeout');
    expect(timeout).toMatchObject({ stage: 'approve', answer: { value: 'R' } });
    expect(events.some((event) => event.type === 'stage.failed' && event.nodeId === 'approve')).toBe(false);
  });

  it('times out to a default choice given as an accelerator key or a label', async () => {
    for (const choice of ['D', 'Discard']) {
      const { result } = await runDot(gate(`, timeout="1s", human.default_choice="${choice}"`), {
        interviewer: recorder(['never']),
        clock: createTestClock(),
      });
      expect(result.completedNodes).toEqual(['start', 'approve', 'exit']);
    }
  });

  it('asks for a retry when it times out without a default choice', async () => {
    const interviewer = recorder(['never', 'A']);
    const { result } = await runDot(gate(', timeout="1s", max_retries=1'), {
      interviewer,
      clock: createTestClock(),
      backend: createSimulationBackend(),
    });
    expect(interviewer.questions).toHaveLength(2);
    expect(result.completedNodes).toEqual(['start', 'approve', 'publish', 'exit']);
  });

  it('asks a FREEFORM question when human.input="text" and stores the text', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      feedback [shape=hexagon, label="What should change?", human.input="text", human.context_key="context.feedback"]
      start -> feedback -> exit
    }`;
    const interviewer = recorder([{ value: 'shorter intro', text: 'shorter intro' }]);
    const { result, logsRoot } = await runDot(source, { interviewer });
    expect(interviewer.questions[0]).toMatchObject({
      type: 'freeform',
      text: 'What should change?',
      options: [],
    });
    expect(result.context.get('human.gate.text')).toBe('shorter intro');
    expect(result.context.get('context.feedback')).toBe('shorter intro');
    expect(readJson(join(logsRoot, 'feedback', 'status.json'))).toMatchObject({ outcome: 'success' });
  });
});
