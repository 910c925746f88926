import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { describeShellAccess, findShellAccess } from './find-shell-access.js';

function graphOf(source: string) {
  const { graph } = prepareGraph(source, { filename: 'p.dot' });
  if (graph === undefined) throw new Error('fixture does not parse');
  return graph;
}

describe('findShellAccess', () => {
  it('finds tool nodes by shape and by type, with their lines', () => {
    const graph = graphOf(`digraph t {
  start [shape=Mdiamond]
  build [shape=parallelogram, tool_command="make"]
  lint [type="tool", tool_command="eslint ."]
  plan [prompt="Plan"]
  done [shape=Msquare]
  start -> build -> lint -> plan -> done
}`);
    const found = findShellAccess({ graph });
    expect(found).toEqual([
      { nodeId: 'build', line: 3, kind: 'tool', handlerType: 'tool' },
      { nodeId: 'lint', line: 4, kind: 'tool', handlerType: 'tool' },
    ]);
    expect(found.map(describeShellAccess)).toEqual([
      'tool node "build" (line 3)',
      'tool node "lint" (line 4)',
    ]);
  });

  it('finds tool hooks on the graph and on nodes, manager loops and subgraph nodes', () => {
    const graph = graphOf(`digraph h {
  tool_hooks.post = "notify"
  start [shape=Mdiamond]
  plan [prompt="Plan", tool_hooks.pre="echo pre"]
  manage [shape=house, stack.child_dotfile="child.dot"]
  checks [type="subgraph", graph_ref="checks.dot"]
  done [shape=Msquare]
  start -> plan -> manage -> checks -> done
}`);
    expect(findShellAccess({ graph }).map(describeShellAccess)).toEqual([
      'tool_hooks on node "plan" (line 4)',
      'manager-loop node "manage" (line 5) (runs a child pipeline file)',
      'subgraph node "checks" (line 6) (runs the pipeline file of its graph_ref)',
      'graph attribute tool_hooks.pre/tool_hooks.post',
    ]);
  });

  it('uses the registry mapping when given, and finds nothing in a pipeline without shell access', () => {
    const graph = graphOf(
      'digraph s { start [shape=Mdiamond]; plan [prompt="x"]; done [shape=Msquare]; start -> plan -> done }',
    );
    expect(findShellAccess({ graph })).toEqual([]);
    expect(findShellAccess({ graph, handlerTypeOf: (id) => (id === 'plan' ? 'tool' : 'start') })).toEqual([
      { nodeId: 'plan', line: 1, kind: 'tool', handlerType: 'tool' },
    ]);
  });

  it('names the handler of a node whose plug-in handler declares runsCommand', () => {
    const graph = graphOf(
      'digraph s {\n  start [shape=Mdiamond]\n  ship [type="deploy"]\n  done [shape=Msquare]\n  start -> ship -> done\n}',
    );
    expect(findShellAccess({ graph })).toEqual([]);
    const found = findShellAccess({ graph, handlers: new Map([['deploy', { runsCommand: true }]]) });
    expect(found.map(describeShellAccess)).toEqual([
      'node "ship" (line 3), whose "deploy" handler runs commands',
    ]);
  });
});
