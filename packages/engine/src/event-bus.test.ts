import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, registryWith, run, tempDir } from '../test/helpers.js';
import type { Handler } from './handler.js';
import type { PipelineEvent, StageCompletedEvent } from './pipeline-event.js';
import { startPipeline } from './run-pipeline.js';
import { createTestGraph } from './test/graph-builder.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createScriptedHandler } from './test/scripted-handler.js';
import { createScriptedInterviewer } from './test/scripted-interviewer.js';
import { createTestClock } from './test/test-clock.js';

describe('events (spec §9.6)', () => {
  const graph = createTestGraph({ edges: ['start -> a -> exit'] });

  it('are delivered through the typed emitter, by type and as "event"', async () => {
    const run = startPipeline({
      graph,
      registry: registryWith(createScriptedHandler()),
      logsRoot: tempDir(),
      clock: createTestClock(),
    });
    const completed: string[] = [];
    let all = 0;
    run.events.on('stage.completed', (event: StageCompletedEvent) =>
      completed.push(`${event.nodeId}:${event.status}`),
    );
    run.events.on('event', () => {
      all += 1;
    });
    await run.result;
    expect(completed).toEqual(['start:success', 'a:success', 'exit:success']);
    expect(all).toBe(11);
  });

  it('are available as an async iterator that ends with the run', async () => {
    const run = startPipeline({
      graph,
      registry: registryWith(createScriptedHandler()),
      logsRoot: tempDir(),
      clock: createTestClock(),
    });
    const types: string[] = [];
    for await (const event of run) types.push(event.type);
    expect(types[0]).toBe('pipeline.started');
    expect(types.at(-1)).toBe('pipeline.completed');
    expect(types).toHaveLength(11);
  });

  it('carry seq, ISO timestamp and run id', async () => {
    const { events, logsRoot } = await run({ graph, registry: registryWith(createScriptedHandler()) });
    const runId = logsRoot.split('/').at(-1);
    expect(events.every((event) => event.runId === runId)).toBe(true);
    expect(events[0]).toMatchObject({ seq: 1, timestamp: '2026-01-01T00:00:00.000Z' });
  });

  it('stamp each event with the clock time at emission, also when the clock moves between events', async () => {
    const clock = createTestClock({ startMs: Date.UTC(2026, 0, 1, 12, 0, 0, 0) });
    const handler: Handler = {
      execute: async () => {
        await clock.sleep(1_234);
        return { status: 'success' };
      },
    };
    const registry = registryWith(handler, { start: handler, exit: handler });
    const { events } = await run({ graph, clock, registry });
    const stamps = (type: string) =>
      events.filter((event) => event.type === type).map((event) => event.timestamp);
    expect(stamps('stage.started')).toEqual([
      '2026-01-01T12:00:00.000Z',
      '2026-01-01T12:00:01.234Z',
      '2026-01-01T12:00:02.468Z',
    ]);
    expect(stamps('stage.completed')).toEqual([
      '2026-01-01T12:00:01.234Z',
      '2026-01-01T12:00:02.468Z',
      '2026-01-01T12:00:03.702Z',
    ]);
    expect(readEvents(events[0]!.type === 'pipeline.started' ? events[0].logsRoot : '')).toEqual(events);
  });

  it('emit pipeline.failed with the reason and the node', async () => {
    const handler = createScriptedHandler({ script: { a: [{ status: 'fail', failureReason: 'nope' }] } });
    const { events } = await run({ graph, registry: registryWith(handler) });
    expect(events.at(-1)).toMatchObject({
      type: 'pipeline.failed',
      error: 'node "a" failed: nope',
      nodeId: 'a',
    });
  });

  it('stamp stage-scoped events from handlers with the node id and write them to events.jsonl', async () => {
    const talker: Handler = {
      execute: async ({ runtime }) => {
        runtime.emit({
          type: 'agent.tool_call.started',
          toolName: 'shell',
          callId: 'c1',
          arguments: { command: 'ls' },
        });
        runtime.emit({ type: 'agent.text', text: 'done', delta: false });
        return { status: 'success' };
      },
    };
    const { logsRoot } = await run({ graph, registry: registryWith(talker) });
    const stageEvents = readEvents(logsRoot).filter((event) => event.type.startsWith('agent.'));
    expect(stageEvents.map((event) => [event.type, (event as { nodeId: string }).nodeId])).toEqual([
      ['agent.tool_call.started', 'a'],
      ['agent.text', 'a'],
    ]);
  });

  it('never write secrets: values of *KEY*/*TOKEN*/*SECRET* keys and known secret values are redacted', async () => {
    const leaky: Handler = {
      execute: async ({ runtime }) => {
        runtime.emit({
          type: 'agent.tool_call.started',
          toolName: 'shell',
          callId: 'c1',
          arguments: {
            env: { GITHUB_TOKEN: 'ghp_abcdef123456' },
            command: 'deploy --key sk-known-secret-42',
          },
        });
        return {
          status: 'success',
          notes: 'used sk-known-secret-42',
          contextUpdates: { 'context.api_key': 'plain-value-xyz' },
        };
      },
    };
    const { logsRoot } = await run({
      graph,
      registry: registryWith(leaky),
      secretValues: ['sk-known-secret-42'],
    });
    const eventsText = readFileSync(join(logsRoot, 'events.jsonl'), 'utf8');
    const statusText = readFileSync(join(logsRoot, 'a', 'status.json'), 'utf8');
    for (const text of [eventsText, statusText]) {
      expect(text).not.toContain('ghp_abcdef123456');
      expect(text).not.toContain('sk-known-secret-42');
      expect(text).not.toContain('plain-value-xyz');
    }
    expect(eventsText).toContain('[REDACTED]');
  });

  it('keep running when a listener throws', async () => {
    const { result } = await run({
      graph,
      registry: registryWith(createScriptedHandler()),
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    expect(result.status).toBe('success');
  });
});

describe('interviewer wrapper (spec §6.5, §9.6)', () => {
  const humanGraph = createTestGraph({
    nodes: [{ id: 'gate', shape: 'hexagon' }],
    edges: ['start -> gate -> exit'],
  });
  const asking = (timeoutMs?: number, withDefault = false): Handler => ({
    execute: async ({ node, runtime }) => {
      const answer = await runtime.interviewer.ask({
        id: `${node.id}:1`,
        text: 'Ship?',
        type: 'yes_no',
        options: [],
        stage: node.id,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(withDefault ? { default: { value: 'no' } } : {}),
      });
      return { status: 'success', notes: answer.value };
    },
  });

  it('emits interview.started and interview.completed around an answer', async () => {
    const interviewer = createScriptedInterviewer(['yes']);
    const { result, events } = await run({
      graph: humanGraph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': asking() }),
      interviewer,
    });
    expect(result.nodeOutcomes.gate?.notes).toBe('yes');
    const types = events
      .map((event: PipelineEvent) => event.type)
      .filter((type) => type.startsWith('interview.'));
    expect(types).toEqual(['interview.started', 'interview.completed']);
    expect(interviewer.questions[0]?.text).toBe('Ship?');
  });

  it('answers { value: "timeout" } after timeoutMs without a default and emits interview.timeout', async () => {
    const interviewer = createScriptedInterviewer(['never']);
    const { result, events } = await run({
      graph: humanGraph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': asking(5000) }),
      interviewer,
    });
    expect(result.nodeOutcomes.gate?.notes).toBe('timeout');
    expect(events.find((event) => event.type === 'interview.timeout')).toMatchObject({
      stage: 'gate',
      answer: { value: 'timeout' },
    });
  });

  it('answers with question.default on timeout', async () => {
    const { result } = await run({
      graph: humanGraph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': asking(5000, true) }),
      interviewer: createScriptedInterviewer(['never']),
    });
    expect(result.nodeOutcomes.gate?.notes).toBe('no');
  });

  it('fails the node with an explanation when the run has no interviewer', async () => {
    const { result } = await run({
      graph: humanGraph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': asking() }),
    });
    expect(result.nodeOutcomes.gate?.status).toBe('fail');
    expect(result.nodeOutcomes.gate?.failureReason).toContain(
      'needs a human answer, but the run has no interviewer',
    );
  });

  it("write a stage's start as soon as its handler waits, and a stage that never waits in one append with its end", async () => {
    const store = createMemoryRunStore('/memory/batches');
    const append = store.appendEvents.bind(store);
    const batches: string[][] = [];
    store.appendEvents = (batch) => {
      batches.push(batch.map((event) => `${event.type}${'nodeId' in event ? `:${event.nodeId}` : ''}`));
      return append(batch);
    };
    let startedWhileWaiting: string[] = [];
    const waiter: Handler = {
      execute: async ({ node }) => {
        if (node.id !== 'slow') return { status: 'success' };
        await new Promise((resolve) => setTimeout(resolve, 20));
        startedWhileWaiting = store.events.map((event) => event.type).slice(-1);
        return { status: 'success' };
      },
    };
    const { result } = await run({
      graph: createTestGraph({ edges: ['start -> quick -> slow -> exit'] }),
      logsRoot: '/memory/batches',
      registry: registryWith(waiter),
      createRunStore: () => store,
    });
    expect(result.status).toBe('success');
    // The slow stage's start was in the store while its handler was still waiting.
    expect(startedWhileWaiting).toEqual(['stage.started']);
    // The quick stage's start and end went to the store together.
    expect(batches).toContainEqual(expect.arrayContaining(['stage.started:quick', 'stage.completed:quick']));
    expect(store.events.map((event) => event.seq)).toEqual(store.events.map((_, index) => index + 1));
  });

  it.each([
    ['throws', false],
    ['rejects', true],
  ])(
    'keep events a handler emitted while the store refused them (it %s), and write them in order once it accepts again',
    async (_how, asynchronous) => {
      const store = createMemoryRunStore('/memory/refusing');
      const append = store.appendEvents.bind(store);
      let refusals = 1;
      store.appendEvents = (batch) => {
        if (batch.some((event) => event.type === 'agent.text') && refusals > 0) {
          refusals -= 1;
          const error = Object.assign(new Error('ENOSPC: no space left on device, write'), {
            code: 'ENOSPC',
          });
          if (asynchronous) return Promise.reject(error);
          throw error;
        }
        return asynchronous ? Promise.resolve(append(batch)) : append(batch);
      };
      const talker: Handler = {
        execute: async ({ runtime }) => {
          runtime.emit({ type: 'agent.text', text: 'first', delta: false });
          await new Promise((resolve) => setTimeout(resolve, 10));
          runtime.emit({ type: 'agent.text', text: 'second', delta: false });
          return { status: 'success' };
        },
      };
      const { result } = await run({
        graph: createTestGraph({ edges: ['start -> a -> exit'] }),
        logsRoot: '/memory/refusing',
        registry: registryWith(talker),
        createRunStore: () => store,
      });
      expect(result.status).toBe('success');
      expect(refusals).toBe(0);
      expect(store.events.filter((event) => event.type === 'agent.text').map((event) => event.text)).toEqual([
        'first',
        'second',
      ]);
      expect(store.events.map((event) => event.seq)).toEqual(store.events.map((_, index) => index + 1));
    },
  );
});
