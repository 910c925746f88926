import { describe, expect, it } from 'vitest';
import { describeKey } from './attribute-help.js';

const project = { handlerTypes: [], handlers: [], models: [] };

describe('describeKey of a sub-pipeline node (README "Typed data")', () => {
  it('explains input.<name> as the child pipeline input it gives, and var.<name> as a variable', () => {
    expect(describeKey('input.file', { scope: 'node', type: 'subgraph', project })).toBe(
      '**input.file** · sub-pipeline input\n\nGives the input `file` that the pipeline `graph_ref` names declares in its `inputs` (its `$input.file`); `$goal`, `$context.<key>`, `$input.<name>` and `$item.<as>` are expanded, and the value is read as `attractor run --input` reads it (README "Typed data").',
    );
    expect(describeKey('var.diff_cmd', { scope: 'node', type: 'subgraph', project })).toContain(
      '**var.diff_cmd** · sub-pipeline variable',
    );
    expect(describeKey('input.', { scope: 'node', type: 'subgraph', project })).toContain(
      'unknown attribute',
    );
  });
});
