import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodergenBackend, CodergenRequest, Handler } from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { readJson, readText, runDot, tempDir } from './helpers.js';

const linear = `digraph G {
  graph [goal="ship the slugify fix"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [label="Plan it", prompt="Plan how to $goal"]
  review [label="Review the plan"]
  start -> plan -> review -> exit
}`;

function recordingBackend(answer: (request: CodergenRequest) => Promise<string> | string): CodergenBackend & {
  requests: CodergenRequest[];
} {
  const requests: CodergenRequest[] = [];
  return {
    requests,
    async run(request) {
      requests.push(request);
      return answer(request);
    },
  };
}

describe('start, exit and conditional handlers (spec §11.6)', () => {
  it('start and exit return SUCCESS at once and the run completes', async () => {
    const { result, logsRoot } = await runDot(linear, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'plan', 'review', 'exit']);
    expect(result.nodeOutcomes.start?.status).toBe('success');
    expect(result.nodeOutcomes.exit?.status).toBe('success');
    expect(readJson<{ outcome: string }>(join(logsRoot, 'exit', 'status.json')).outcome).toBe('success');
  });

  it('conditional passes through and the engine routes on the edge conditions', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      check [shape=diamond]
      good [prompt="good"]
      bad [prompt="bad"]
      start -> check
      check -> good [condition="context.flag=on"]
      check -> bad [condition="context.flag!=on"]
      good -> exit
      bad -> exit
    }`;
    const { result } = await runDot(source, { backend: createSimulationBackend(), context: { flag: 'on' } });
    expect(result.completedNodes).toEqual(['start', 'check', 'good', 'exit']);
    expect(result.nodeOutcomes.check).toMatchObject({
      status: 'success',
      notes: 'Conditional node evaluated: check',
    });
  });

  it('custom handlers can be registered by type string', async () => {
    const registry = createDefaultRegistry({ backend: createSimulationBackend() });
    const custom: Handler = {
      execute: async ({ node }) => ({
        status: 'success',
        contextUpdates: { 'custom.seen': node.attributes.flavour?.value ?? '' },
      }),
    };
    registry.register('my_custom_type', custom);
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      mine [type="my_custom_type", flavour="mint"]
      start -> mine -> exit
    }`;
    const { result } = await runDot(source, { registry });
    expect(result.status).toBe('success');
    expect(result.context.get('custom.seen')).toBe('mint');
  });
});

describe('codergen handler (spec §4.5, §11.6)', () => {
  it('expands $goal, calls CodergenBackend.run() and writes prompt.md and response.md to the stage dir', async () => {
    const backend = recordingBackend((request) => `done: ${request.node.id}`);
    const { result, logsRoot } = await runDot(linear, { backend });
    expect(result.status).toBe('success');
    expect(readText(join(logsRoot, 'plan', 'prompt.md'))).toBe('Plan how to ship the slugify fix');
    expect(readText(join(logsRoot, 'plan', 'response.md'))).toBe('done: plan');
    expect(readJson(join(logsRoot, 'plan', 'status.json'))).toMatchObject({
      outcome: 'success',
      notes: 'Stage completed: plan',
      context_updates: { last_stage: 'plan', last_response: 'done: plan' },
    });
    expect(backend.requests.map((request) => request.prompt)).toEqual([
      'Plan how to ship the slugify fix',
      'Review the plan',
    ]);
  });

  it('falls back to the label when the node has no prompt', async () => {
    const backend = recordingBackend(() => 'ok');
    const { logsRoot } = await runDot(linear, { backend });
    expect(readText(join(logsRoot, 'review', 'prompt.md'))).toBe('Review the plan');
  });

  it('passes fidelity, thread key, preamble, signal, stage and working directories to the backend', async () => {
    const workdir = tempDir();
    const backend = recordingBackend(() => 'ok');
    const source = `digraph G {
      graph [goal="g", default_fidelity="truncate"]
      start [shape=Mdiamond]
      exit [shape=Msquare]
      a [prompt="a", fidelity="full", thread_id="main"]
      start -> a -> exit
    }`;
    const { logsRoot } = await runDot(source, { backend, workdir });
    const request = backend.requests[0]!;
    expect(request.fidelity).toBe('full');
    expect(request.threadKey).toBe('main');
    expect(request.preamble).toBe('');
    expect(request.stageDir).toBe(join(logsRoot, 'a'));
    expect(request.workdir).toBe(workdir);
    expect(request.abortSignal.aborted).toBe(true);
    expect(request.context.getString('graph.goal')).toBe('g');
  });

  it('gives a fresh session a preamble sized by the fidelity mode', async () => {
    const backend = recordingBackend(() => 'ok');
    await runDot(linear, { backend });
    expect(backend.requests[1]!.fidelity).toBe('compact');
    expect(backend.requests[1]!.preamble).toContain('ship the slugify fix');
  });

  it('truncates last_response to 200 characters in the context and keeps the full response.md', async () => {
    const long = 'x'.repeat(450);
    const { result, logsRoot } = await runDot(linear, { backend: recordingBackend(() => long) });
    expect(result.context.get('last_response')).toBe('x'.repeat(200));
    expect(readJson(join(logsRoot, 'review', 'status.json'))).toMatchObject({
      context_updates: { last_stage: 'review', last_response: 'x'.repeat(200) },
    });
    expect(readText(join(logsRoot, 'review', 'response.md'))).toHaveLength(450);
  });

  it('lets a status.json written by the agent during the stage override the outcome (Appendix C)', async () => {
    const backend = recordingBackend((request) => {
      if (request.node.id === 'plan') {
        writeFileSync(
          join(request.stageDir, 'status.json'),
          JSON.stringify({
            outcome: 'needs_work',
            preferred_label: 'rework',
            context_updates: { 'context.plan': 'v2' },
          }),
        );
      }
      return 'written by the agent';
    });
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      plan [prompt="plan"]
      rework [prompt="rework"]
      start -> plan
      plan -> exit [condition="outcome=success"]
      plan -> rework [condition="outcome=needs_work"]
      rework -> exit
    }`;
    const { result } = await runDot(source, { backend });
    expect(result.completedNodes).toEqual(['start', 'plan', 'rework', 'exit']);
    expect(result.nodeOutcomes.plan).toMatchObject({ status: 'needs_work', preferredLabel: 'rework' });
    expect(result.context.get('context.plan')).toBe('v2');
    expect(result.context.get('last_response')).toBe('written by the agent');
  });

  it('fails the stage naming the field when the agent writes a malformed status.json', async () => {
    const backend = recordingBackend((request) => {
      writeFileSync(join(request.stageDir, 'status.json'), JSON.stringify({ outcome: 42 }));
      return 'ok';
    });
    const source = `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; start -> a -> exit }`;
    const { result } = await runDot(source, { backend });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.a?.failureReason).toMatch(
      /status\.json does not follow the status file contract \(spec Appendix C\): "outcome"/,
    );
  });

  it('maps a backend error with retryable=false to a FAIL that is not retried', async () => {
    let calls = 0;
    const backend: CodergenBackend = {
      async run() {
        calls += 1;
        throw Object.assign(new Error('401 invalid api key'), { retryable: false });
      },
    };
    const source = `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a", max_retries=3]; start -> a -> exit }`;
    const { result } = await runDot(source, { backend, clock: createTestClock() });
    expect(calls).toBe(1);
    expect(result.nodeOutcomes.a).toMatchObject({
      status: 'fail',
      failureReason: '401 invalid api key',
      retryable: false,
    });
  });

  it('retries a backend error with retryable=true', async () => {
    let calls = 0;
    const backend: CodergenBackend = {
      async run() {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error('429 rate limited'), { retryable: true });
        return 'fine';
      },
    };
    const source = `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a", max_retries=2]; start -> a -> exit }`;
    const { result } = await runDot(source, { backend, clock: createTestClock() });
    expect(calls).toBe(2);
    expect(result.status).toBe('success');
  });

  it('takeSteering() returns and removes the files in {stageDir}/steer/ in order', async () => {
    const taken: string[][] = [];
    const backend = recordingBackend(async (request) => {
      mkdirSync(join(request.stageDir, 'steer'), { recursive: true });
      writeFileSync(join(request.stageDir, 'steer', '0010.md'), 'second');
      writeFileSync(join(request.stageDir, 'steer', '0002.md'), 'first');
      taken.push(await request.takeSteering());
      taken.push(await request.takeSteering());
      return 'ok';
    });
    const source = `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; start -> a -> exit }`;
    const { logsRoot } = await runDot(source, { backend });
    expect(taken).toEqual([['first', 'second'], []]);
    expect(existsSync(join(logsRoot, 'a', 'steer', '0002.md'))).toBe(false);
  });

  it('fails with an explanation when the run has no backend', async () => {
    const source = `digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; start -> a -> exit }`;
    const { result } = await runDot(source);
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.a?.failureReason).toContain('has no backend');
  });
});
