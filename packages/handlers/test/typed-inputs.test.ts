import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { readText, runDot, tempDir } from './helpers.js';

const PIPELINE = `digraph typed {
  graph [goal="Ship", inputs="repo: string, issue: integer, note?: string, labels?: string[]"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [prompt="Fix $input.repo#$input.issue ($input.labels) for $goal$input.note"]
  check [shape=parallelogram, tool_command="printf '%s|%s|%s|%s' \\"$input.repo\\" $input.issue \\"$input.labels\\" \\"$goal\\""]
  start -> plan -> check -> exit
}`;

describe('$input.<name> in prompts and tool commands (README "Typed data")', () => {
  it('puts the values in the prompt, and gives them to the command as environment variables, never as shell text', async () => {
    const repo = 'acme/api; echo injected';
    const { result, logsRoot } = await runDot(PIPELINE, {
      backend: createSimulationBackend(),
      workdir: tempDir(),
      inputs: { repo, issue: 42, labels: ['bug', 'p1'] },
    });
    expect(result.status).toBe('success');
    expect(readText(join(logsRoot, 'plan', 'prompt.md'))).toBe(
      'Fix acme/api; echo injected#42 (["bug","p1"]) for Ship',
    );
    // The command's $input.x reads ${ATTRACTOR_INPUT_x}: the `;` in the value is data, $goal is not expanded.
    expect(readText(join(logsRoot, 'check', 'stdout.txt'))).toBe(`${repo}|42|["bug","p1"]|`);
    expect(result.nodeOutcomes.check?.notes).toBe(
      `Tool completed: printf '%s|%s|%s|%s' "\${ATTRACTOR_INPUT_repo}" \${ATTRACTOR_INPUT_issue} "\${ATTRACTOR_INPUT_labels}" "$goal"`,
    );
  });
});
