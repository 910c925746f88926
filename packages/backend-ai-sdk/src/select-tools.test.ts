import { createTestNode } from '@attractor/engine/test';
import { CODING_TOOL_NAMES } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { selectTools } from './select-tools.js';

describe('selectTools (node attribute `tools`)', () => {
  it('offers every core tool by default and for "all"', () => {
    expect(selectTools(createTestNode({ id: 'n' }))).toEqual(CODING_TOOL_NAMES);
    expect(selectTools(createTestNode({ id: 'n', attrs: { tools: 'all' } }))).toEqual(CODING_TOOL_NAMES);
  });

  it('offers none for "none" and the listed ones in canonical order for a list', () => {
    expect(selectTools(createTestNode({ id: 'n', attrs: { tools: 'none' } }))).toEqual([]);
    expect(selectTools(createTestNode({ id: 'n', attrs: { tools: 'glob, read_file ,grep' } }))).toEqual([
      'read_file',
      'grep',
      'glob',
    ]);
  });

  it('rejects an unknown tool name, listing the valid ones', () => {
    expect(() => selectTools(createTestNode({ id: 'review', attrs: { tools: 'read_file, bash' } }))).toThrow(
      'Node "review" has tools="read_file, bash": unknown tool "bash". Use "none", "all", or a comma-separated list of read_file, write_file, edit_file, shell, grep, glob.',
    );
  });
});
