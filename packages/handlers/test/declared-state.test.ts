import { describe, expect, it } from 'vitest';
import { runDot, tempDir } from './helpers.js';

/** A parallel block whose branches are tool stages printing JSON, mapped into the context by out_map. */
function fanOut(state: string, branches: readonly { id: string; command: string; outMap: string }[]): string {
  const nodes = branches
    .map(
      (branch) =>
        `  ${branch.id} [shape=parallelogram, tool_command=${JSON.stringify(branch.command)}, output_schema="{\\"type\\": \\"object\\"}", out_map="${branch.outMap}"]`,
    )
    .join('\n');
  const edges = branches.map((branch) => `  fan -> ${branch.id} -> join`).join('\n');
  return `digraph S {
  graph [${state}]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fan [shape=component]
  join [shape=tripleoctagon, join_merge=none]
${nodes}
  start -> fan
${edges}
  join -> exit
}`;
}

describe('declared state at a parallel join (README "Typed data")', () => {
  it('appends every branch to a declared list in branch order, not finish order', async () => {
    const { result } = await runDot(
      fanOut('state="findings: append, summary: replace"', [
        {
          id: 'slow',
          command: `sleep 0.5; echo '{"f": "slow", "s": "from slow"}'`,
          outMap: 'f -> findings, s -> summary',
        },
        {
          id: 'fast',
          command: `echo '{"f": "fast", "s": "from fast"}'`,
          outMap: 'f -> findings, s -> summary',
        },
        { id: 'mid', command: `sleep 0.2; echo '{"f": ["m1", "m2"]}'`, outMap: 'f -> findings' },
      ]),
      { workdir: tempDir() },
    );
    expect(result.status, result.failureReason).toBe('success');
    expect(result.context.get('findings')).toEqual(['slow', 'fast', 'm1', 'm2']);
    expect(result.context.get('summary')).toBe('from fast');
  });

  it('fails the join when two branches write the same undeclared key differently, naming the key and the branches', async () => {
    const { result } = await runDot(
      fanOut('state="findings: append"', [
        { id: 'lint', command: `echo '{"v": "ok"}'`, outMap: 'v -> verdict' },
        { id: 'test', command: `echo '{"v": "ok"}'`, outMap: 'v -> other' },
        { id: 'review', command: `echo '{"v": "reject"}'`, outMap: 'v -> verdict' },
      ]),
      { workdir: tempDir() },
    );
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain(
      'parallel branches "lint" and "review" both wrote the undeclared context key "verdict" with different values',
    );
    expect(result.context.has('verdict')).toBe(false);
  });

  it('keeps the untyped behaviour without state: the selected branch wins, no conflict', async () => {
    const { result } = await runDot(
      fanOut('goal="x"', [
        { id: 'lint', command: `echo '{"v": "ok"}'`, outMap: 'v -> verdict' },
        { id: 'review', command: `echo '{"v": "reject"}'`, outMap: 'v -> verdict' },
      ]),
      { workdir: tempDir() },
    );
    expect(result.status).toBe('success');
  });
});
