import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { withoutAgentShellTransform } from './without-agent-shell.js';

describe('withoutAgentShellTransform', () => {
  it('removes shell from every node that could use it and leaves the rest', () => {
    const { graph } = prepareGraph(
      `digraph t {
  start [shape=Mdiamond]
  all [prompt="a"]
  some [prompt="b", tools="read_file, shell"]
  only [prompt="c", tools="shell"]
  none [prompt="d", tools="none"]
  reader [prompt="e", tools="read_file,grep"]
  done [shape=Msquare]
  start -> all -> some -> only -> none -> reader -> done
}`,
      { transforms: [withoutAgentShellTransform] },
    );
    const tools = (id: string) => graph?.node(id)?.attributes.tools?.value;
    expect(tools('all')).toBe('read_file,write_file,edit_file,grep,glob');
    expect(tools('some')).toBe('read_file');
    expect(tools('only')).toBe('none');
    expect(tools('none')).toBe('none');
    expect(tools('reader')).toBe('read_file,grep');
    expect(graph?.node('reader')?.attributes.tools?.origin).toBe('explicit');
    expect(tools('start')).toBeUndefined();
    expect(tools('done')).toBeUndefined();
  });
});
