import { describe, expect, it } from 'vitest';
import { truncateLines, truncateOutput, truncateToolOutput } from './truncate-output.js';

describe('truncateOutput (coding-agent-loop-spec §5.1)', () => {
  it('returns output within the limit unchanged', () => {
    expect(truncateOutput('abcdef', 6, 'head_tail')).toBe('abcdef');
  });

  it('keeps head and tail around a warning naming the removed count', () => {
    const output = `${'a'.repeat(10)}${'m'.repeat(80)}${'z'.repeat(10)}`;
    const result = truncateOutput(output, 20, 'head_tail');
    expect(
      result.startsWith(
        `${'a'.repeat(10)}\n\n[WARNING: Tool output was truncated. 80 characters were removed from the middle.`,
      ),
    ).toBe(true);
    expect(result.endsWith(`re-run the tool with more targeted parameters.]\n\n${'z'.repeat(10)}`)).toBe(
      true,
    );
    expect(result).not.toContain('mm');
  });

  it('keeps only the tail in tail mode', () => {
    expect(truncateOutput('0123456789', 4, 'tail')).toBe(
      '[WARNING: Tool output was truncated. First 6 characters were removed. The full output is available in the event stream.]\n\n6789',
    );
  });
});

describe('truncateLines (coding-agent-loop-spec §5.3)', () => {
  it('keeps the first and last lines around an omission marker', () => {
    const output = Array.from({ length: 10 }, (_, index) => `l${index}`).join('\n');
    expect(truncateLines(output, 4)).toBe('l0\nl1\n[... 6 lines omitted ...]\nl8\nl9');
    expect(truncateLines('a\nb', 4)).toBe('a\nb');
  });
});

describe('truncateToolOutput (coding-agent-loop-spec §5.2-5.3)', () => {
  it('applies the read_file limit of 50,000 characters to a 100,000-character file', () => {
    const result = truncateToolOutput('x'.repeat(100_000), 'read_file');
    expect(result).toContain('50000 characters were removed from the middle');
    expect(result.replace(/\n\n\[WARNING[^\]]*\]\n\n/, '')).toBe('x'.repeat(50_000));
  });

  it('truncates characters before lines, so two huge lines are still cut', () => {
    const result = truncateToolOutput(`${'a'.repeat(40_000)}\n${'b'.repeat(40_000)}`, 'shell');
    expect(result.length).toBeLessThan(30_400);
    expect(result.includes('50001 characters were removed')).toBe(true);
  });

  it('applies the shell line limit of 256 after the character limit', () => {
    const output = Array.from({ length: 1000 }, (_, index) => `${index}`).join('\n');
    const lines = truncateToolOutput(output, 'shell').split('\n');
    expect(lines).toHaveLength(257);
    expect(lines[128]).toBe('[... 744 lines omitted ...]');
    expect(lines.at(-1)).toBe('999');
  });

  it('takes per-tool overrides', () => {
    expect(truncateToolOutput('abcdefgh', 'grep', { grep: { maxChars: 2, mode: 'tail' } })).toMatch(
      /\n\ngh$/,
    );
  });
});
