import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findJoinNode, prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import { readJson, registryWith, run } from '../test/helpers.js';
import { readFixture } from '../test/read-fixture.js';
import type { Handler } from './handler.js';
import type { BranchResult } from './handler-runtime.js';
import type { Checkpoint } from './run-store.js';
import { graphFrom } from './test/graph-from.js';

/** A codergen-like handler: writes prompt.md, response.md and status.json to the stage directory (spec §4.5). */
function fakeCodergen(failOnce: Set<string> = new Set()): Handler {
  return {
    async execute({ node, runtime }) {
      const prompt = node.prompt === '' ? node.label : node.prompt;
      writeFileSync(join(runtime.stageDir, 'prompt.md'), prompt);
      const failing = failOnce.delete(node.id);
      const response = failing ? 'not yet' : `done: ${node.id}`;
      writeFileSync(join(runtime.stageDir, 'response.md'), response);
      return failing
        ? { status: 'fail', failureReason: 'first draft rejected' }
        : { status: 'success', contextUpdates: { last_response: response } };
    },
  };
}

describe('spec §11.13 integration smoke test (scripted LLM)', () => {
  const graph = graphFrom(readFixture('spec-smoke-test.dot'), 'spec-smoke-test.dot');

  it('runs plan -> implement -> review -> done with artifacts, a satisfied gate and a final checkpoint', async () => {
    const { result, logsRoot } = await run({ graph, registry: registryWith(fakeCodergen()) });
    expect(graph.settings.goal).toBe('Create a hello world Python script');
    expect(result.status).toBe('success');
    expect(result.completedNodes).toContain('implement');
    for (const stage of ['plan', 'implement', 'review']) {
      for (const file of ['prompt.md', 'response.md', 'status.json'])
        expect(existsSync(join(logsRoot, stage, file))).toBe(true);
    }
    expect(readFileSync(join(logsRoot, 'plan', 'prompt.md'), 'utf8')).toBe(
      'Plan how to create a hello world script for: Create a hello world Python script',
    );
    expect(result.nodeOutcomes.implement?.status).toBe('success');
    const checkpoint = readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'));
    expect(checkpoint.current_node).toBe('done');
    expect(checkpoint.completed_nodes).toEqual(expect.arrayContaining(['plan', 'implement', 'review']));
  });

  it('loops back on failure and keeps the first attempt under visits/1', async () => {
    const { result, logsRoot } = await run({
      graph,
      registry: registryWith(fakeCodergen(new Set(['review']))),
    });
    expect(result.completedNodes).toEqual([
      'start',
      'plan',
      'implement',
      'review',
      'implement',
      'review',
      'done',
    ]);
    expect(readFileSync(join(logsRoot, 'review', 'visits', '1', 'response.md'), 'utf8')).toBe('not yet');
    expect(readFileSync(join(logsRoot, 'review', 'response.md'), 'utf8')).toBe('done: review');
  });
});

/** A parallel handler in the shape the built-in one takes, enough to walk real pipelines. */
const parallel: Handler = {
  async execute({ node, context, graph, runtime }) {
    const joinId = findJoinNode(graph, node.id);
    const results: BranchResult[] = await Promise.all(
      graph.outgoing(node.id).map((edge) =>
        runtime.runBranch({
          startNodeId: edge.to,
          context: context.clone(),
          branchId: edge.to,
          stopBefore: (candidate) => candidate.id === joinId,
        }),
      ),
    );
    // Branches that never meet stop before the exit, where the parent walk continues.
    const join = joinId ?? results.find((result) => result.stoppedAt !== undefined)?.stoppedAt;
    return { status: 'success', ...(join === undefined ? {} : { suggestedNextIds: [join] }) };
  },
};

const human: Handler = {
  async execute({ node, graph, runtime }) {
    const edges = graph.outgoing(node.id);
    const answer = await runtime.interviewer.ask({
      id: node.id,
      text: node.label,
      type: 'multiple_choice',
      options: edges.map((edge) => ({ key: edge.to, label: edge.label || edge.to })),
      stage: node.id,
    });
    return { status: 'success', suggestedNextIds: [answer.value] };
  },
};

const corpus = corpusDotDirectory('the corpus run tests of @attractor/engine');
describe.skipIf(corpus === undefined)('the corpus of real pipelines (shared/corpus/dot)', () => {
  const files = corpus === undefined ? [] : readdirSync(corpus).filter((name) => name.endsWith('.dot'));
  const runnable = files.flatMap((file) => {
    const { graph, diagnostics } = prepareGraph(readFileSync(join(corpus!, file), 'utf8'), {
      filename: file,
    });
    return graph === undefined || diagnostics.some((diagnostic) => diagnostic.severity === 'error')
      ? []
      : [{ file, graph }];
  });
  const auto = {
    ask: async (question: { options: readonly { key: string }[] }) => ({
      value: question.options[0]?.key ?? 'yes',
    }),
  };
  const success: Handler = { execute: async () => ({ status: 'success' }) };

  it('has valid pipelines to run', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(5);
  });

  it.each(runnable)('$file runs to an end with a stated reason, never a crash', async ({ graph }) => {
    const { result } = await run({
      graph,
      registry: registryWith(success, { parallel, 'wait.human': human }),
      interviewer: auto,
      maxSteps: 300,
    });
    expect(['success', 'fail']).toContain(result.status);
    if (result.status === 'fail') expect(result.failureReason).toMatch(/\S/);
    expect(result.completedNodes[0]).toBe(graph.startNode?.id);
  });
});
