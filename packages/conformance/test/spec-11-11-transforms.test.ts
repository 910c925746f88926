/** Spec §11.11 Transforms and Extensibility: one test per checkbox, through prepareGraph and the HTTP server. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Graph, prepareGraph, type Transform } from '@attractor/graph';
import { startServer } from '@attractor/server';
import { describe, expect, it } from 'vitest';

const PIPELINE = `digraph G {
  graph [goal="Write release notes"]
  start [shape=Mdiamond]; exit [shape=Msquare]
  draft [prompt="Draft: $goal"]
  start -> draft -> exit
}`;

/** A transform that appends a suffix to every prompt and records that it ran. */
function suffixTransform(name: string, suffix: string, log: string[]): Transform {
  return {
    name,
    apply(graph: Graph) {
      log.push(name);
      const nodes = [...graph.nodes.values()].map((node) =>
        node.prompt === '' ? node : { ...node, prompt: `${node.prompt}${suffix}` },
      );
      return graph.with({ nodes });
    },
  };
}

describe('§11.11 Transforms and Extensibility', () => {
  it('AST transforms can modify the Graph between parsing and validation', () => {
    // Adding a prompt in a transform silences the prompt lint: the transform ran before validation.
    const fillPrompts: Transform = {
      name: 'fill_prompts',
      apply: (graph) =>
        graph.with({
          nodes: [...graph.nodes.values()].map((node) =>
            node.shape === 'box' && node.prompt === '' ? { ...node, prompt: `Do ${node.id}` } : node,
          ),
        }),
    };
    const source = 'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; work; start -> work -> exit }';
    const rules = (transforms: Transform[]) =>
      prepareGraph(source, { transforms }).diagnostics.map((diagnostic) => diagnostic.rule);
    expect(rules([])).toContain('prompt_on_llm_nodes');
    expect(rules([fillPrompts])).not.toContain('prompt_on_llm_nodes');
    expect(prepareGraph(source, { transforms: [fillPrompts] }).graph!.node('work')!.prompt).toBe('Do work');
  });

  it('Transform interface: `transform(graph) -> graph`', () => {
    const original = prepareGraph(PIPELINE).graph!;
    const log: string[] = [];
    const transformed = suffixTransform('shout', '!', log).apply(original);
    expect(transformed).not.toBe(original);
    expect(transformed.node('draft')!.prompt).toBe('Draft: Write release notes!');
    // Transforms return a new graph; the input is not changed (spec §9.1).
    expect(original.node('draft')!.prompt).toBe('Draft: Write release notes');
  });

  it('Built-in variable expansion transform replaces `$goal` in prompts', () => {
    const graph = prepareGraph(PIPELINE).graph!;
    expect(graph.node('draft')!.prompt).toBe('Draft: Write release notes');
  });

  it('Custom transforms can be registered and run in order', () => {
    const log: string[] = [];
    const graph = prepareGraph(PIPELINE, {
      transforms: [suffixTransform('first', ' [1]', log), suffixTransform('second', ' [2]', log)],
    }).graph!;
    expect(log).toEqual(['first', 'second']);
    // After the built-in $goal expansion, then in registration order.
    expect(graph.node('draft')!.prompt).toBe('Draft: Write release notes [1] [2]');
  });

  it('HTTP server mode (if implemented): POST /run starts pipeline, GET /status checks state, POST /answer submits human input [implemented with the §9.5 paths: POST /pipelines, GET /pipelines/{id}, POST /pipelines/{id}/questions/{qid}/answer]', async () => {
    const runsDir = mkdtempSync(join(tmpdir(), 'attractor-conformance-server-'));
    const server = await startServer({ runsDir, port: 0 });
    const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
      const response = await fetch(`${server.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const waitFor = async <TValue>(probe: () => Promise<TValue | undefined>): Promise<TValue> => {
      // Up to a minute: a loaded machine answers slowly.
      for (let attempt = 0; attempt < 1200; attempt++) {
        const value = await probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('timed out waiting for the server');
    };
    try {
      const started = await call('/pipelines', {
        method: 'POST',
        json: {
          dot: `digraph Gate {
            start [shape=Mdiamond]; exit [shape=Msquare]
            approve [shape=hexagon, label="Release?"]
            release [prompt="r"]; abort [prompt="a"]
            start -> approve
            approve -> abort [label="[N] No"]
            approve -> release [label="[Y] Yes"]
            release -> exit; abort -> exit
          }`,
        },
      });
      expect(started.status).toBe(201);
      const id = started.body.id as string;
      const question = await waitFor(async () => {
        const { body } = await call(`/pipelines/${id}/questions`);
        return (body.questions as { id: string; question: { text: string } }[])[0];
      });
      expect(question.question.text).toContain('Release?');
      const waiting = await call(`/pipelines/${id}`);
      expect(waiting.body).toMatchObject({ state: 'waiting', pendingQuestions: 1 });
      const answered = await call(`/pipelines/${id}/questions/${encodeURIComponent(question.id)}/answer`, {
        method: 'POST',
        json: { value: 'Y' },
      });
      expect(answered.status).toBeLessThan(300);
      const done = await waitFor(async () => {
        const { body } = await call(`/pipelines/${id}`);
        return body.state === 'success' ? body : undefined;
      });
      expect(done.completedNodes).toEqual(['start', 'approve', 'release', 'exit']);
    } finally {
      await server.close();
      rmSync(runsDir, { recursive: true, force: true });
    }
  });
});
