import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readEvents, readJson, registryWith, run } from '../test/helpers.js';
import type { Handler } from './handler.js';
import { HandlerRegistry } from './handler-registry.js';
import type { JsonValue } from './json-value.js';
import { resumePipeline, runPipeline } from './run-pipeline.js';
import type { StageStatusFile } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createMemoryRunStore } from './test/memory-run-store.js';
import { createScriptedHandler } from './test/scripted-handler.js';
import { createTestClock } from './test/test-clock.js';

describe('runPipeline: execution engine (spec §11.3)', () => {
  it('resolves the start node and begins execution there', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({
      nodes: [{ id: 'begin', shape: 'Mdiamond' }],
      edges: ['begin -> a -> exit'],
    });
    const { result, events } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes[0]).toBe('begin');
    expect(events.find((event) => event.type === 'pipeline.started')).toMatchObject({ startNodeId: 'begin' });
  });

  it("resolves each node's handler via the shape-to-handler-type mapping", async () => {
    const seen: string[] = [];
    const tagged = (tag: string): Handler => ({
      execute: async ({ node }) => {
        seen.push(`${tag}:${node.id}`);
        return { status: 'success' };
      },
    });
    const registry = new HandlerRegistry({
      defaultHandler: tagged('default'),
      handlers: {
        conditional: tagged('conditional'),
        tool: tagged('tool'),
        start: tagged('start'),
        exit: tagged('exit'),
      },
    });
    const graph = createTestGraph({
      nodes: [
        { id: 'check', shape: 'diamond' },
        { id: 'build', shape: 'parallelogram' },
      ],
      edges: ['start -> check -> build -> plain -> exit'],
    });
    await run({ graph, registry });
    expect(seen).toEqual(['start:start', 'conditional:check', 'tool:build', 'default:plain', 'exit:exit']);
  });

  it('calls the handler with (node, context, graph, logsRoot, runtime) and uses its Outcome', async () => {
    let received: unknown[] = [];
    const handler: Handler = {
      execute: async ({ node, context, graph, logsRoot, runtime }) => {
        received = [
          node.id,
          context.getString('current_node'),
          graph.id,
          logsRoot,
          runtime.stageDir,
          runtime.visit,
          runtime.attempt,
        ];
        return { status: 'success', notes: 'did it' };
      },
    };
    const graph = createTestGraph({ id: 'g', edges: ['start -> work -> exit'] });
    const { result, logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(received).toEqual(['work', 'work', 'g', logsRoot, join(logsRoot, 'work'), 1, 1]);
    expect(result.nodeOutcomes.work).toEqual({ status: 'success', notes: 'did it' });
  });

  it('writes the outcome to {logs_root}/{node_id}/status.json', async () => {
    const handler = createScriptedHandler({
      script: {
        work: [{ status: 'success', preferredLabel: 'next', notes: 'n', contextUpdates: { k: 'v' } }],
      },
    });
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const { logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(readJson<StageStatusFile>(join(logsRoot, 'work', 'status.json'))).toEqual({
      outcome: 'success',
      preferred_label: 'next',
      notes: 'n',
      context_updates: { k: 'v' },
    });
  });

  it('loops: execute node, select edge, advance, repeat', async () => {
    const handler = createScriptedHandler({ script: { check: ['fail', 'fail', 'success'] } });
    const graph = createTestGraph({
      edges: [
        'start -> work -> check',
        { from: 'check', to: 'work', condition: 'outcome=fail' },
        { from: 'check', to: 'exit', condition: 'outcome=success' },
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual([
      'start',
      'work',
      'check',
      'work',
      'check',
      'work',
      'check',
      'exit',
    ]);
  });

  it('stops at the terminal node', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({
      nodes: [{ id: 'done', shape: 'Msquare' }],
      edges: ['start -> a -> done'],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    expect(result.completedNodes.at(-1)).toBe('done');
    expect(handler.nodeIds()).toEqual(['a']);
  });

  it('ends with success when every goal gate succeeded, fail otherwise', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'gate', goalGate: true }],
      edges: [
        'start -> gate',
        { from: 'gate', to: 'exit' },
        { from: 'gate', to: 'exit', condition: 'outcome=fail' },
      ],
    });
    const partial = createScriptedHandler({ script: { gate: [{ status: 'partial_success' }] } });
    expect((await run({ graph, registry: registryWith(partial) })).result.status).toBe('success');
    const failing = createScriptedHandler({ script: { gate: ['fail'] } });
    const { result } = await run({ graph, registry: registryWith(failing) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain('goal gate "gate" unsatisfied (outcome=fail)');
  });

  it('mirrors graph attributes into the context as graph.*', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({
      settings: { goal: 'Ship it' },
      attrs: { label: 'Demo' },
      edges: ['start -> a -> exit'],
    });
    await run({ graph, registry: registryWith(handler) });
    expect(handler.calls[0]!.context['graph.goal']).toBe('Ship it');
    expect(handler.calls[0]!.context['graph.label']).toBe('Demo');
  });

  it('sets the built-in context keys outcome, preferred_label, current_node and last_stage', async () => {
    const handler = createScriptedHandler({ script: { a: [{ status: 'success', preferredLabel: 'Go' }] } });
    const graph = createTestGraph({ edges: ['start -> a -> b -> exit'] });
    await run({ graph, registry: registryWith(handler) });
    expect(handler.calls[1]!.context).toMatchObject({
      outcome: 'success',
      preferred_label: 'Go',
      current_node: 'b',
      last_stage: 'a',
    });
  });
});

describe('runPipeline: last_stage (spec §5.1, §4.7; issue 19 bug 1)', () => {
  it('is set by the stages that run a handler of their own, not by a conditional node', async () => {
    const handler = createScriptedHandler();
    const conditional = { execute: async () => ({ status: 'success' as const }) };
    const graph = createTestGraph({
      nodes: [{ id: 'check', shape: 'diamond' }],
      edges: [
        'start -> step1 -> check',
        { from: 'check', to: 'found', condition: 'context.last_stage=step1' },
        { from: 'check', to: 'other', condition: 'context.last_stage!=step1' },
        'found -> exit',
        'other -> exit',
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler, { conditional }) });
    expect(result.completedNodes).toEqual(['start', 'step1', 'check', 'found', 'exit']);
  });
});

describe('runPipeline: routing', () => {
  it('fails closed at a dead end, naming the node, the outcome and the conditions that did not match (docs/architecture.md "Routing dead ends")', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({
      edges: [
        'start -> review',
        { from: 'review', to: 'exit', condition: 'outcome=fail' },
        { from: 'review', to: 'fix', condition: 'outcom=success' },
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'no eligible edge from review (outcome=success); none of its edge conditions matched: "outcome=fail" (-> exit), "outcom=success" (-> fix)',
    );
  });

  it('ends a node without outgoing edges as the spec says (success)', async () => {
    const graph = createTestGraph({
      nodes: ['lonely'],
      edges: ['start -> lonely', 'start -> exit'],
      settings: {},
    });
    const handler = createScriptedHandler({
      script: { start: [{ status: 'success', suggestedNextIds: ['lonely'] }] },
    });
    const registry = registryWith(handler, { start: handler });
    const { result } = await run({ graph, registry });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'lonely']);
  });

  it('routes a FAIL along a fail edge (spec §3.7 step 1)', async () => {
    const handler = createScriptedHandler({ script: { work: ['fail'] } });
    const graph = createTestGraph({
      edges: [
        'start -> work',
        { from: 'work', to: 'exit' },
        { from: 'work', to: 'recover', condition: 'outcome=fail' },
        'recover -> exit',
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes).toEqual(['start', 'work', 'recover', 'exit']);
  });

  it('does not follow an unconditional edge after a FAIL; uses retry_target (spec §3.7 step 2)', async () => {
    const handler = createScriptedHandler({ script: { work: ['fail', 'success'] } });
    const graph = createTestGraph({
      nodes: [{ id: 'work', retryTarget: 'prepare' }],
      edges: ['start -> prepare -> work -> exit'],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes).toEqual(['start', 'prepare', 'work', 'prepare', 'work', 'exit']);
  });

  it('takes a fallback_retry_target at most once per failing node (docs/architecture.md "Loop guards")', async () => {
    const handler = createScriptedHandler({
      script: { work: [{ status: 'fail', failureReason: 'broken' }] },
    });
    const graph = createTestGraph({
      nodes: [{ id: 'work', fallbackRetryTarget: 'prepare' }],
      edges: ['start -> prepare -> work -> exit'],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes).toEqual(['start', 'prepare', 'work', 'prepare', 'work']);
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe(
      'node "work" failed: broken (fallback_retry_target already taken once)',
    );
  });

  it('terminates with the stage failure reason when no failure route exists (spec §3.7 step 4)', async () => {
    const handler = createScriptedHandler({
      script: { work: [{ status: 'fail', failureReason: 'compile error' }] },
    });
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toBe('node "work" failed: compile error');
  });

  it('routes a custom outcome word like any outcome value (docs/architecture.md "Outcomes")', async () => {
    const handler = createScriptedHandler({ script: { classify: ['process'] } });
    const graph = createTestGraph({
      edges: [
        'start -> classify',
        { from: 'classify', to: 'processor', condition: 'outcome=process' },
        { from: 'classify', to: 'exit', condition: 'outcome=done' },
        'processor -> exit',
      ],
    });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.completedNodes).toEqual(['start', 'classify', 'processor', 'exit']);
  });

  it('follows preferred_label from a handler (wait.human style)', async () => {
    const human: Handler = { execute: async () => ({ status: 'success', preferredLabel: 'Fix' }) };
    const graph = createTestGraph({
      nodes: [{ id: 'gate', shape: 'hexagon' }],
      edges: [
        'start -> gate',
        { from: 'gate', to: 'ship', label: '[A] Approve' },
        { from: 'gate', to: 'fix', label: '[F] Fix' },
        'ship -> exit',
        'fix -> exit',
      ],
    });
    const { result } = await run({
      graph,
      registry: registryWith(createScriptedHandler(), { 'wait.human': human }),
    });
    expect(result.completedNodes).toEqual(['start', 'gate', 'fix', 'exit']);
  });
});

describe('runPipeline: handler faults', () => {
  it('stops the run as a fault when the store refuses a stage file, and the stage runs again on resume', async () => {
    const store = createMemoryRunStore('/memory/full-disk');
    const writeStageFile = store.writeStageFile.bind(store);
    let diskFull = true;
    store.writeStageFile = async (stagePath, name, data) => {
      if (diskFull && stagePath === 'work') {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return writeStageFile(stagePath, name, data);
    };
    let calls = 0;
    const writer: Handler = {
      execute: async ({ runtime }) => {
        calls += 1;
        try {
          await runtime.stage.writeFile('report.md', 'all good');
        } catch (error) {
          // A handler that swallows the error still cannot turn the fault into a stage failure.
          return { status: 'fail', failureReason: (error as Error).message };
        }
        return { status: 'success' };
      },
    };
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const options = {
      graph,
      registry: registryWith(writer),
      logsRoot: '/memory/full-disk',
      createRunStore: () => store,
      clock: createTestClock(),
    };
    await expect(runPipeline(options)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(store.events.some((event) => event.type === 'stage.completed' && event.nodeId === 'work')).toBe(
      false,
    );

    diskFull = false;
    const resumed = await resumePipeline(options);
    expect(resumed.status).toBe('success');
    expect(calls).toBe(2);
    expect(new TextDecoder().decode(await store.readStageFile('work', 'report.md'))).toBe('all good');
  });

  it('turns an exception into a FAIL outcome with the message (spec §4.12)', async () => {
    const handler = createScriptedHandler({ script: { work: [{ throw: 'kaboom' }] } });
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.work).toEqual({ status: 'fail', failureReason: 'kaboom' });
  });

  it('fails the node when a context update is not JSON', async () => {
    const handler = createScriptedHandler({
      script: {
        work: [{ status: 'success', contextUpdates: { when: new Date(0) as unknown as JsonValue } }],
      },
    });
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.work?.failureReason).toContain('context update "when" is not JSON');
    expect(result.context.has('when')).toBe(false);
  });

  it('fails the node when the handler sets a non-JSON context value directly', async () => {
    const handler: Handler = {
      execute: async ({ context }) => {
        context.set('fn', (() => 1) as unknown as JsonValue);
        return { status: 'success' };
      },
    };
    const graph = createTestGraph({ edges: ['start -> work -> exit'] });
    const { result } = await run({ graph, registry: registryWith(handler) });
    expect(result.nodeOutcomes.work?.status).toBe('fail');
    expect(result.nodeOutcomes.work?.failureReason).toContain('Context value for "fn" is not JSON');
  });

  it('fails a node with an unknown handler type with a fix in the reason', async () => {
    const graph = createTestGraph({
      nodes: [{ id: 'odd', type: 'mystery' }],
      edges: ['start -> odd -> exit'],
    });
    const { result } = await run({ graph, registry: new HandlerRegistry() });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain('No handler is registered for type "mystery"');
  });

  it('auto_status: a handler returning nothing succeeds when auto_status=true', async () => {
    const silent: Handler = { execute: async () => undefined as never };
    const graph = createTestGraph({
      nodes: [{ id: 'auto', autoStatus: true }, { id: 'strict' }],
      edges: ['start -> auto -> strict -> exit'],
    });
    const { result } = await run({ graph, registry: registryWith(silent) });
    expect(result.nodeOutcomes.auto).toEqual({
      status: 'success',
      notes: 'auto-status: handler completed without writing status',
    });
    expect(result.nodeOutcomes.strict?.status).toBe('fail');
    expect(result.nodeOutcomes.strict?.failureReason).toContain('set auto_status=true');
  });

  it('reads a status.json the handler wrote itself when it returns nothing (Appendix C)', async () => {
    const { writeFileSync } = await import('node:fs');
    const writer: Handler = {
      execute: async ({ runtime }) => {
        writeFileSync(
          join(runtime.stageDir, 'status.json'),
          JSON.stringify({ outcome: 'fail', notes: 'from file' }),
        );
        return undefined as never;
      },
    };
    const graph = createTestGraph({
      edges: ['start -> work', { from: 'work', to: 'exit', condition: 'outcome=fail' }],
    });
    const { result } = await run({ graph, registry: registryWith(writer) });
    expect(result.nodeOutcomes.work).toEqual({ status: 'fail', notes: 'from file' });
    expect(result.status).toBe('success');
  });
});

describe('runPipeline: run directory (spec §5.6)', () => {
  it('writes manifest.json with graph name, goal, sha256, start time and version', async () => {
    const graph = createTestGraph({
      id: 'demo',
      settings: { goal: 'Do it' },
      source: 'digraph demo {}',
      edges: ['start -> exit'],
    });
    const { logsRoot } = await run({ graph, registry: new HandlerRegistry(), sourcePath: '/tmp/demo.dot' });
    const manifest = readJson<Record<string, unknown>>(join(logsRoot, 'manifest.json'));
    expect(manifest).toMatchObject({
      graph_name: 'demo',
      goal: 'Do it',
      source_path: '/tmp/demo.dot',
      source_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      started_at: '2026-01-01T00:00:00.000Z',
      // The version of this package, whatever the release.
      engine_version: readJson<{ version: string }>(
        fileURLToPath(new URL('../package.json', import.meta.url)),
      ).version,
    });
  });

  it('moves an earlier visit to {node}/visits/<n>/ before the next visit', async () => {
    const handler = createScriptedHandler({
      script: {
        check: [
          { status: 'fail', notes: 'first' },
          { status: 'success', notes: 'second' },
        ],
      },
    });
    const graph = createTestGraph({
      edges: [
        'start -> check',
        { from: 'check', to: 'start2', condition: 'outcome=fail' },
        'start2 -> check',
        { from: 'check', to: 'exit', condition: 'outcome=success' },
      ],
    });
    const { logsRoot } = await run({ graph, registry: registryWith(handler) });
    expect(readJson<StageStatusFile>(join(logsRoot, 'check', 'status.json')).notes).toBe('second');
    expect(readJson<StageStatusFile>(join(logsRoot, 'check', 'visits', '1', 'status.json')).notes).toBe(
      'first',
    );
    expect(readdirSync(join(logsRoot, 'check')).sort()).toEqual(['status.json', 'visits']);
  });

  it('counts visits of nodes named like Object.prototype members (constructor, __proto__, toString)', async () => {
    const calls = new Map<string, number>();
    const handler: Handler = {
      execute: async ({ node, runtime }) => {
        const count = (calls.get(node.id) ?? 0) + 1;
        calls.set(node.id, count);
        return {
          status: node.id === 'toString' && count >= 2 ? 'done' : 'success',
          notes: `visit ${runtime.visit}`,
        };
      },
    };
    const graph = createTestGraph({
      edges: [
        'start -> constructor -> __proto__ -> toString',
        { from: 'toString', to: 'constructor', condition: 'outcome=success' },
        { from: 'toString', to: 'exit', condition: 'outcome=done' },
      ],
    });
    const { result, logsRoot, events } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    const visits = events.flatMap((event) =>
      event.type === 'stage.completed' ? [`${event.nodeId}:${event.visit}`] : [],
    );
    expect(visits).toEqual([
      'start:1',
      'constructor:1',
      '__proto__:1',
      'toString:1',
      'constructor:2',
      '__proto__:2',
      'toString:2',
      'exit:1',
    ]);
    for (const id of ['constructor', '__proto__', 'toString']) {
      expect(readJson<StageStatusFile>(join(logsRoot, id, 'status.json')).notes).toBe('visit 2');
      expect(readJson<StageStatusFile>(join(logsRoot, id, 'visits', '1', 'status.json')).notes).toBe(
        'visit 1',
      );
    }
    const checkpoint = readJson<{ node_visits: Record<string, number> }>(join(logsRoot, 'checkpoint.json'));
    expect(Object.entries(checkpoint.node_visits)).toEqual(
      expect.arrayContaining([
        ['constructor', 2],
        ['__proto__', 2],
        ['toString', 2],
      ]),
    );
  });

  it('appends every event to events.jsonl with increasing seq and ISO timestamps', async () => {
    const graph = createTestGraph({ edges: ['start -> a -> exit'] });
    const { logsRoot, events } = await run({ graph, registry: registryWith(createScriptedHandler()) });
    const written = readEvents(logsRoot);
    expect(written).toEqual(events);
    expect(written.map((event) => event.seq)).toEqual(written.map((_, index) => index + 1));
    expect(written.every((event) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(event.timestamp))).toBe(
      true,
    );
    expect(written.map((event) => event.type)).toEqual([
      'pipeline.started',
      'stage.started',
      'stage.completed',
      'checkpoint.saved',
      'stage.started',
      'stage.completed',
      'checkpoint.saved',
      'stage.started',
      'stage.completed',
      'checkpoint.saved',
      'pipeline.completed',
    ]);
  });

  it('creates the stage directory before execute', async () => {
    let existed = false;
    const handler: Handler = {
      execute: async ({ runtime }) => {
        existed = existsSync(runtime.stageDir);
        return { status: 'success' };
      },
    };
    await run({ graph: createTestGraph({ edges: ['start -> a -> exit'] }), registry: registryWith(handler) });
    expect(existed).toBe(true);
  });
});
