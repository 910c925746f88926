import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareGraph } from '../prepare-graph.js';
import { promptFileRef } from './prompt-files.js';

const SOURCE = `digraph G {
  goal="Ship the release"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [prompt="@prompts/plan.md"]
  other [prompt="@prompts/missing.md"]
  start -> plan -> other -> exit
}
`;

/** The real files of a project: the pipeline in `pipelines/`, one prompt file beside it. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'attractor-prompt-files-'));
  mkdirSync(join(root, 'pipelines', 'prompts'), { recursive: true });
  writeFileSync(join(root, 'pipelines', 'release.dot'), SOURCE);
  writeFileSync(
    join(root, 'pipelines', 'prompts', 'plan.md'),
    '# Plan\n\nPlan how to reach the goal: $goal\n',
  );
  return root;
}

function readFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

describe('prompt files (prompt="@path")', () => {
  it('names a file only when the whole prompt is @ and a path', () => {
    expect(promptFileRef('@prompts/plan.md')).toBe('prompts/plan.md');
    expect(promptFileRef('  @plan.md\n')).toBe('plan.md');
    expect(promptFileRef('@claude please review')).toBeUndefined();
    expect(promptFileRef('@here')).toBeUndefined();
    expect(promptFileRef('Read @prompts/plan.md')).toBeUndefined();
  });

  it("makes the file's text the node's prompt, relative to the DOT file, with $goal expanded", () => {
    const root = project();
    const filename = join(root, 'pipelines', 'release.dot');
    const { graph, diagnostics } = prepareGraph(SOURCE, { filename, readGraphFile: readFile });
    expect(graph!.node('plan')!.prompt).toBe('# Plan\n\nPlan how to reach the goal: Ship the release\n');
    // The attribute keeps what was written, so its span and hover stay exact.
    expect(graph!.node('plan')!.attributes.prompt!.value).toBe('@prompts/plan.md');
    const missing = diagnostics.filter((diagnostic) => diagnostic.rule === 'prompt_file');
    expect(missing).toEqual([
      expect.objectContaining({
        severity: 'warning',
        nodeId: 'other',
        message: expect.stringContaining(
          `names the prompt file "prompts/missing.md", which does not exist (looked for ${join(root, 'pipelines', 'prompts', 'missing.md')})`,
        ),
        span: expect.objectContaining({ start: expect.objectContaining({ line: 6, column: 17 }) }),
      }),
    ]);
    expect(graph!.node('other')!.prompt).toBe('@prompts/missing.md');
  });

  it('warns that prompt files are not read when the pipeline comes without a file reader', () => {
    const { diagnostics } = prepareGraph(SOURCE, { filename: 'release.dot' });
    expect(diagnostics.filter((diagnostic) => diagnostic.rule === 'prompt_file')).toHaveLength(2);
    expect(diagnostics.find((diagnostic) => diagnostic.rule === 'prompt_file')!.message).toContain(
      'which is not read here',
    );
  });
});
