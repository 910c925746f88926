import { describe, expect, it } from 'vitest';
import { prepareGraph } from '../../prepare-graph.js';

function diagnostics(body: string, mcpServers?: readonly string[]) {
  const source = `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n${body}\n}`;
  return prepareGraph(source, mcpServers === undefined ? {} : { mcpServers }).diagnostics.filter(
    (diagnostic) => diagnostic.rule === 'mcp_server_known' || diagnostic.rule === 'unknown_attribute',
  );
}

describe('mcp_server_known', () => {
  it('reports a name the configuration does not define, at the attribute value, with the defined names', () => {
    const found = diagnostics('  work [prompt="Go", mcp_servers="docs, trakcer"]\n  start -> work -> exit', [
      'docs',
      'tracker',
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'error',
      nodeId: 'work',
      message:
        'Node "work" has mcp_servers naming "trakcer", which the configuration does not define (it defines docs, tracker). Did you mean "tracker"?',
      span: { start: { line: 4, column: 34 } },
    });
  });

  it('checks names the model_stylesheet sets and says so', () => {
    const found = diagnostics(
      '  graph [model_stylesheet="* { mcp_servers: search; }"]\n  work [prompt="Go"]\n  start -> work -> exit',
      [],
    );
    expect(found.map((diagnostic) => diagnostic.message)).toEqual([
      'Node "work" has mcp_servers (from the model_stylesheet) naming "search", which the configuration does not define (it defines no MCP servers).',
    ]);
  });

  it('accepts defined names and "none", and checks nothing when the configured names are not given', () => {
    expect(
      diagnostics('  work [prompt="Go", mcp_servers="docs"]\n  start -> work -> exit', ['docs']),
    ).toEqual([]);
    expect(diagnostics('  work [prompt="Go", mcp_servers="none"]\n  start -> work -> exit', [])).toEqual([]);
    expect(diagnostics('  work [prompt="Go", mcp_servers="anything"]\n  start -> work -> exit')).toEqual([]);
  });
});
