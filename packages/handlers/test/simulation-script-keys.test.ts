import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkSimulationScriptKeys,
  checkSimulationScriptSteps,
  loadPipelineGraphs,
  pipelineOutcomeWords,
} from '../src/simulation-script-keys.js';
import { graphFrom, pipelines } from './helpers.js';

const parent = `digraph Parent {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  classify [prompt="Classify"]
  checks [type="subgraph", graph_ref="../checks/pipeline.dot"]
  supervise [shape=house, stack.child_dotfile="../sprint/child.dot"]
  start -> classify -> checks -> supervise -> exit
}
`;
const checks = `digraph Checks {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  lint [shape=parallelogram, tool_command="npm run lint"]
  start -> lint -> exit
}
`;
const sprint = `digraph Sprint {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  implement [prompt="Implement"]
  start -> implement -> exit
}
`;

describe('checkSimulationScriptKeys (--simulate-script, spec §9.4, §4.11)', () => {
  it('accepts keys of the pipeline, of a subgraph child and of a manager loop child', async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent,
      'checks/pipeline.dot': checks,
      'sprint/child.dot': sprint,
    });
    const check = await checkSimulationScriptKeys({
      script: { classify: ['bug'], lint: ['fail', 'success'], implement: ['success'] },
      graph,
      workdir: dir,
    });
    expect(check.unknownKeys).toEqual([]);
    expect(check.nodeIds).toEqual(['start', 'exit', 'classify', 'checks', 'supervise', 'lint', 'implement']);
    expect(check.unreadChildren).toEqual([]);
  });

  it('reports keys that name no node, with the near node id of any level', async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent,
      'checks/pipeline.dot': checks,
      'sprint/child.dot': sprint,
    });
    const check = await checkSimulationScriptKeys({
      script: { clasify: ['bug'], lnt: ['fail'], implemnt: ['fail'], deploy: ['fail'] },
      graph,
      workdir: dir,
    });
    expect(check.unknownKeys).toEqual([
      { key: 'clasify', suggestion: 'classify' },
      { key: 'lnt', suggestion: 'lint' },
      { key: 'implemnt', suggestion: 'implement' },
      { key: 'deploy' },
    ]);
  });

  it('lists a child file it cannot read, without throwing, and still checks the rest', async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent,
      'checks/pipeline.dot': checks,
    });
    const check = await checkSimulationScriptKeys({
      script: { implement: ['fail'], lint: ['fail'] },
      graph,
      workdir: dir,
    });
    expect(check.unknownKeys).toEqual([{ key: 'implement' }]);
    expect(check.unreadChildren).toEqual([
      {
        path: join(dir, 'sprint', 'child.dot'),
        reason: expect.stringContaining('cannot be read (no such file)'),
      },
    ]);
  });

  it('resolves child files against the working directory when the pipeline has no file name', async () => {
    const { dir } = pipelines({ 'checks/pipeline.dot': checks });
    const graph = graphFrom(
      'digraph P {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  run [type="subgraph", graph_ref="checks/pipeline.dot"]\n  start -> run -> exit\n}',
    );
    const check = await checkSimulationScriptKeys({
      script: { lint: ['fail'], lin: [] },
      graph,
      workdir: dir,
    });
    expect(check.unknownKeys).toEqual([{ key: 'lin', suggestion: 'lint' }]);
  });
});

describe('loadPipelineGraphs (the graphs the script checks share)', () => {
  it('reads the pipeline and its sub-pipelines once; the checks use what they are given instead of reading again', async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent,
      'checks/pipeline.dot': checks,
      'sprint/child.dot': sprint,
    });
    const loaded = await loadPipelineGraphs({ graph, workdir: dir });
    expect(loaded.graphs.map((each) => each.id)).toEqual(['Parent', 'Checks', 'Sprint']);
    expect(loaded.unreadChildren).toEqual([]);
    expect(await loadPipelineGraphs({ graph, workdir: dir, pipelineGraphs: loaded })).toBe(loaded);
    // Given only the parent, the checks see only the parent's nodes: they did not read the child files.
    const parentOnly = { graphs: [graph], unreadChildren: [] };
    const check = await checkSimulationScriptKeys({
      script: { lint: ['fail'] },
      graph,
      workdir: dir,
      pipelineGraphs: parentOnly,
    });
    expect(check.unknownKeys.map((unknown) => unknown.key)).toEqual(['lint']);
    const full = await checkSimulationScriptKeys({
      script: { lint: ['fail'] },
      graph,
      workdir: dir,
      pipelineGraphs: loaded,
    });
    expect(full.unknownKeys).toEqual([]);
  });
});

describe('pipelineOutcomeWords (--simulate-script, docs/architecture.md "Outcomes")', () => {
  it('lists the custom outcome words of the pipeline and its sub-pipelines, without the standard ones', async () => {
    const { dir, graph } = pipelines({
      'main/pipeline.dot': parent.replace(
        'start -> classify -> checks',
        'start -> classify\n  classify -> checks [condition="outcome=bug"]\n  classify -> exit [condition="outcome!=\\"feature\\" && outcome!=bug"]\n  classify -> checks [condition="outcome=fail"]\n  checks',
      ),
      'checks/pipeline.dot': checks.replace(
        'start -> lint -> exit',
        'start -> lint\n  lint -> exit [condition="outcome=ready"]',
      ),
      'sprint/child.dot': sprint,
    });
    expect(await pipelineOutcomeWords({ graph, workdir: dir })).toEqual(['bug', 'feature', 'ready']);
  });
});

describe('checkSimulationScriptSteps (--simulate-script steps fit their nodes)', () => {
  const files = { 'main/pipeline.dot': parent, 'checks/pipeline.dot': checks, 'sprint/child.dot': sprint };

  it('accepts stdout for a tool node of a sub-pipeline, and outcome words for any node', async () => {
    const { dir, graph } = pipelines(files);
    await expect(
      checkSimulationScriptSteps({
        script: {
          lint: [{ stdout: 'ok' }],
          implement: ['fail', { outcome: 'success' }, { response: { plan: 'x' } }],
          nowhere: [{ stdout: 'x' }],
        },
        graph,
        workdir: dir,
      }),
    ).resolves.toBeUndefined();
  });

  it('refuses stdout for an LLM stage of a child pipeline and for a manager loop, with the key and the index', async () => {
    const { dir, graph } = pipelines(files);
    await expect(
      checkSimulationScriptSteps({
        script: { implement: ['success', { stdout: 'x' }] },
        graph,
        workdir: dir,
        path: 'script.json',
      }),
    ).rejects.toThrow(
      'Simulation script script.json is invalid: "implement"[1].stdout is set, but "implement" is an LLM stage (codergen), which takes an outcome word ("success", "fail", "retry", "partial_success" or a custom word the pipeline routes on) or {"outcome": "..."}; "stdout" is only for tool nodes (shape=parallelogram) in a dry run.',
    );
    await expect(
      checkSimulationScriptSteps({ script: { supervise: [{ stdout: 'x' }] }, graph, workdir: dir }),
    ).rejects.toThrow('"supervise"[0].stdout is set, but "supervise" is a stack.manager_loop node');
  });

  it('refuses a "response" for a tool node: it is the reply of an LLM stage', async () => {
    const { dir, graph } = pipelines(files);
    await expect(
      checkSimulationScriptSteps({ script: { lint: [{ response: 'ok' }] }, graph, workdir: dir }),
    ).rejects.toThrow(
      '"lint"[0].response is set, but "lint" is a tool node, which takes an outcome word or {"outcome": "...", "stdout": "..."}; "response" is the reply of an LLM stage (codergen)',
    );
  });
});
