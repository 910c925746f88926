import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSimulationScriptKeys, pipelineOutcomeWords } from '../src/simulation-script-keys.js';
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

describe('pipelineOutcomeWords (--simulate-script, DESIGN.md "Outcomes")', () => {
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
