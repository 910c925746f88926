import { describe, expect, it } from 'vitest';
import { formatCodeFrame } from './format-code-frame.js';

const source = 'digraph G {\n  start -> plan\n  plan [label="Plan"]\n}\n';

describe('formatCodeFrame', () => {
  it('marks one character for a position, with one line of context each side', () => {
    expect(formatCodeFrame(source, { offset: 30, line: 3, column: 3 })).toBe(
      ['  2 |   start -> plan', '> 3 |   plan [label="Plan"]', '    |   ^', '  4 | }'].join('\n'),
    );
  });

  it('underlines a span and adds a " --> file:line:col" line for a filename', () => {
    const frame = formatCodeFrame(
      source,
      { start: { offset: 35, line: 3, column: 8 }, end: { offset: 47, line: 3, column: 20 } },
      { filename: 'flow.dot', contextLines: 0 },
    );
    expect(frame).toBe(
      [' --> flow.dot:3:8', '> 3 |   plan [label="Plan"]', '    |        ^^^^^^^^^^^^'].join('\n'),
    );
  });

  it('uses the filename stored on the span', () => {
    const frame = formatCodeFrame(source, {
      start: { offset: 0, line: 1, column: 1 },
      end: { offset: 7, line: 1, column: 8 },
      filename: 'a.dot',
    });
    expect(frame.split('\n')[0]).toBe(' --> a.dot:1:1');
  });

  it('keeps tabs in the caret line so the caret lines up', () => {
    const frame = formatCodeFrame(
      'digraph G {\n\t\ta -- b\n}',
      { offset: 16, line: 2, column: 5 },
      { contextLines: 0 },
    );
    expect(frame).toBe(['> 2 | \t\ta -- b', '    | \t\t  ^'].join('\n'));
  });

  it('stops the underline at the end of the first line of a multi-line span', () => {
    const text = 'a [p="one\ntwo"]';
    const frame = formatCodeFrame(
      text,
      { start: { offset: 5, line: 1, column: 6 }, end: { offset: 14, line: 2, column: 5 } },
      { contextLines: 0 },
    );
    expect(frame).toBe(['> 1 | a [p="one', '    |      ^^^^'].join('\n'));
  });

  it('cuts a very long line to a window around the column', () => {
    const line = `n [prompt="${'x'.repeat(500)}" y]`;
    const column = line.indexOf(' y]') + 2;
    const frame = formatCodeFrame(line, { offset: column - 1, line: 1, column }, { maxLineWidth: 60 });
    const [marked, caret] = frame.split('\n');
    expect(marked!.startsWith('> 1 | …')).toBe(true);
    expect(marked!.length).toBeLessThan(80);
    expect(marked!.charAt(caret!.indexOf('^'))).toBe('y');
  });

  it('points after the last character at the end of the text', () => {
    expect(formatCodeFrame('digraph G {', { offset: 11, line: 1, column: 12 })).toBe(
      ['> 1 | digraph G {', '    |            ^'].join('\n'),
    );
  });
});
