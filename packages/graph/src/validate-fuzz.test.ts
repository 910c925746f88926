import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareGraph } from './prepare-graph.js';

/**
 * Bounds of one input through the whole validate path (parse, build, transforms, lint). Time is this process's CPU
 * time, not wall time, so a loaded machine does not fail the bound: it guards against super-linear blow-ups only
 * (speed itself is measured by `pnpm bench`).
 */
const MAX_MS = 30_000;

/** CPU milliseconds this process spent since `since` (a `process.cpuUsage()` reading). */
function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}
const MAX_HEAP_GROWTH_BYTES = 512 * 1024 * 1024;

const shape = fc.oneof(
  // Nested named subgraphs (each with a node), `depth` deep.
  fc.record({ kind: fc.constant('nested' as const), size: fc.integer({ min: 1, max: 5_000 }) }),
  // The same subgraphs one after another.
  fc.record({ kind: fc.constant('flat' as const), size: fc.integer({ min: 1, max: 3_000 }) }),
  // One node with `size` attributes in one list.
  fc.record({ kind: fc.constant('attributes' as const), size: fc.integer({ min: 1, max: 20_000 }) }),
  // `size` attribute blocks `[a=1]` on one node.
  fc.record({ kind: fc.constant('blocks' as const), size: fc.integer({ min: 1, max: 20_000 }) }),
  // A chain of `size` nodes, plus anonymous `{ }` nesting around it.
  fc.record({ kind: fc.constant('chain' as const), size: fc.integer({ min: 1, max: 3_000 }) }),
);

function source(input: { kind: string; size: number }): string {
  const head = 'digraph Fuzz {\n start [shape=Mdiamond]\n exit [shape=Msquare]\n';
  const { size } = input;
  switch (input.kind) {
    case 'nested':
      return `${head} start -> exit\n${Array.from({ length: size }, (_, index) => `subgraph s${index} { n${index} [label="x"]\n`).join('')}${'}\n'.repeat(size)}}\n`;
    case 'flat':
      return `${head} start -> exit\n${Array.from({ length: size }, (_, index) => `subgraph s${index} { n${index} [label="x"] }\n`).join('')}}\n`;
    case 'attributes':
      return `${head} start -> exit [${Array.from({ length: size }, (_, index) => `k${index}=1`).join(' ')}]\n}\n`;
    case 'blocks':
      return `${head} start -> exit\n a ${'[a=1]'.repeat(size)}\n}\n`;
    default:
      return `${head} start -> ${Array.from({ length: size }, (_, index) => `n${index}`).join(' -> ')} -> exit\n${'{ '.repeat(Math.min(size, 2_000))}x${' }'.repeat(Math.min(size, 2_000))}\n}\n`;
  }
}

describe('validate on deep and wide inputs (issue 20 §3, fast-check)', () => {
  it('returns diagnostics, never throws, within a time and memory bound', { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(shape, (input) => {
        const text = source(input);
        const heapBefore = process.memoryUsage().heapUsed;
        const started = process.cpuUsage();
        const prepared = prepareGraph(text, { filename: 'fuzz.dot' });
        const elapsedMs = cpuMsSince(started);
        expect(Array.isArray(prepared.diagnostics)).toBe(true);
        expect(elapsedMs, `${input.kind} ${input.size}`).toBeLessThan(MAX_MS);
        expect(process.memoryUsage().heapUsed - heapBefore, `${input.kind} ${input.size}`).toBeLessThan(
          MAX_HEAP_GROWTH_BYTES,
        );
      }),
      { numRuns: 25, seed: 20 },
    );
  });

  it('handles the extremes of each shape', { timeout: 600_000 }, () => {
    for (const input of [
      { kind: 'nested', size: 20_000 },
      { kind: 'attributes', size: 20_000 },
      { kind: 'chain', size: 3_000 },
    ]) {
      const started = process.cpuUsage();
      expect(() => prepareGraph(source(input), { filename: 'fuzz.dot' })).not.toThrow();
      expect(cpuMsSince(started), `${input.kind} ${input.size}`).toBeLessThan(MAX_MS);
    }
  });
});
