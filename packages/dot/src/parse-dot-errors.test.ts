import { describe, expect, it } from 'vitest';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot } from './parse-dot.js';

function syntaxErrorOf(source: string, filename = 'pipeline.dot'): DotSyntaxError {
  try {
    parseDot(source, { filename });
  } catch (error) {
    if (DotSyntaxError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected parseDot to throw');
}

interface Rejection {
  readonly name: string;
  readonly source: string;
  readonly line: number;
  readonly column: number;
  readonly shortMessage: string;
  readonly hint: RegExp;
}

// Each rejection of issue 2 and docs/architecture.md "Parsing", with the exact place and the fix.
const rejections: readonly Rejection[] = [
  {
    name: 'a quote inside a string that ends it too early, before a word (issue 19)',
    source: 'digraph G {\n  t [tool_command="grep -q "ok" out.txt"]\n}',
    line: 2,
    column: 28,
    shortMessage:
      'A string probably ended too early: this " closes it, and "ok" follows where a "," "]" or new attribute was expected',
    hint: /write it as \\"/,
  },
  {
    name: 'a quote inside a string that ends it too early, before a symbol (issue 19)',
    source: 'digraph G {\n  t [tool_command="test "$(cat f)" = x"]\n}',
    line: 2,
    column: 25,
    shortMessage:
      'A string probably ended too early: this " closes it, and "$" follows where a "," "]" or new attribute was expected',
    hint: /single quotes in shell code/,
  },
  {
    name: 'a hyphen inside a node id',
    source: 'digraph G {\n  start [shape=Mdiamond]\n  run-tests [shape=box]\n}',
    line: 3,
    column: 3,
    shortMessage: '"run-tests" is not an identifier: identifiers hold letters, digits and "_" only',
    hint: /^Use a bare id and put the text in label: run_tests \[label="run-tests"\]$/,
  },
  {
    name: 'a hyphen inside an edge target',
    source: 'digraph G {\n  start -> run-unit-tests\n}',
    line: 2,
    column: 12,
    shortMessage: '"run-unit-tests" is not an identifier: identifiers hold letters, digits and "_" only',
    hint: /run_unit_tests \[label="run-unit-tests"\]/,
  },
  {
    name: 'strict graphs',
    source: 'strict digraph G {\n  a -> b\n}',
    line: 1,
    column: 1,
    shortMessage: '"strict" graphs are not supported',
    hint: /Remove "strict"/,
  },
  {
    name: 'undirected graphs',
    source: '/* header */ graph G {\n  a -> b\n}',
    line: 1,
    column: 14,
    shortMessage: 'Undirected graphs are not supported',
    hint: /Write "digraph" instead of "graph"/,
  },
  {
    name: 'undirected edges',
    source: 'digraph G {\n  start -> a\n  a -- b\n}',
    line: 3,
    column: 5,
    shortMessage: 'Undirected edge "--" is not supported',
    hint: /Write edges with "->"/,
  },
  {
    name: 'a second graph',
    source: 'digraph A {\n  a\n}\n\n// next\ndigraph B {\n  b\n}\n',
    line: 6,
    column: 1,
    shortMessage: 'A second graph starts here; a file may hold only one digraph',
    hint: /file of its own/,
  },
  {
    name: 'a graph inside the graph',
    source: 'digraph A {\n  a\n  digraph B { b }\n}',
    line: 3,
    column: 3,
    shortMessage: 'A graph cannot contain another graph',
    hint: /Close the first graph/,
  },
  {
    name: 'HTML labels',
    source: 'digraph G {\n  a [shape=box, label=<<b>Bold</b>>]\n}',
    line: 2,
    column: 23,
    shortMessage: 'HTML labels ("<...>") are not supported',
    hint: /quoted string/,
  },
  {
    name: 'quoted node ids',
    source: 'digraph G {\n  "Plan step" [shape=box]\n}',
    line: 2,
    column: 3,
    shortMessage: 'Node ids must be bare identifiers; "Plan step" is quoted',
    hint: /plan_step \[label="Plan step"\]/,
  },
  {
    name: 'quoted node ids in edges',
    source: 'digraph G {\n  a -> "Review it"\n}',
    line: 2,
    column: 8,
    shortMessage: 'Node ids must be bare identifiers; "Review it" is quoted',
    hint: /review_it \[label="Review it"\]/,
  },
  {
    name: 'numeric node ids',
    source: 'digraph G {\n  a -> 42\n}',
    line: 2,
    column: 8,
    shortMessage: 'Node ids must be bare identifiers; 42 is a number',
    hint: /n42 \[label="42"\]/,
  },
  {
    name: 'a missing "]" (at the "[" that opened the list)',
    source: 'digraph G {\n  a [label="x"\n  b [label="y"]\n}',
    line: 2,
    column: 5,
    shortMessage: 'This "[" is never closed (reached "}" at line 4, column 1)',
    hint: /Add "]"/,
  },
  {
    name: 'a missing "}" of the graph',
    source: 'digraph G {\n  a -> b\n',
    line: 1,
    column: 11,
    shortMessage: 'The graph\'s "{" is never closed (reached the end of the file)',
    hint: /Add "}"/,
  },
  {
    name: 'a "]" where a subgraph\'s "}" belongs',
    source: 'digraph G {\n  subgraph s {\n    a\n  ]\n}',
    line: 4,
    column: 3,
    shortMessage: 'Unexpected "]": no attribute list is open here',
    hint: /Delete it/,
  },
  {
    name: 'a missing closing quote (at the string that runs on)',
    source: 'digraph G {\n  a [label="x]\n  b [label="y"]\n  c [label="z"]\n}',
    line: 2,
    column: 12,
    shortMessage: 'This string is never closed: it runs on into line 3, which looks like a statement',
    hint: /Add the closing "/,
  },
  {
    name: 'a missing closing quote at the end',
    source: 'digraph G {\n  a [label="x"]\n  b [label="y]\n}',
    line: 3,
    column: 12,
    shortMessage: 'This string is never closed',
    hint: /Add the closing "/,
  },
  {
    name: 'a stray "=" in an attribute list',
    source: 'digraph G {\n  a [label==x]\n}',
    line: 2,
    column: 12,
    shortMessage: 'Unexpected "="',
    hint: /remove the extra "="/,
  },
  {
    name: 'a stray "=" at statement level',
    source: 'digraph G {\n  a -> b\n  = x\n}',
    line: 3,
    column: 3,
    shortMessage: 'Unexpected "="',
    hint: /remove the extra "="/,
  },
  {
    name: 'an attribute without a value (an unquoted value with a space)',
    source: 'digraph G {\n  a [label=Run tests]\n}',
    line: 2,
    column: 16,
    shortMessage: 'Attribute "tests" has no value',
    hint: /quote the whole value/,
  },
  {
    name: 'a graph without a name',
    source: 'digraph {\n  a\n}',
    line: 1,
    column: 9,
    shortMessage: 'The graph has no name',
    hint: /digraph my_pipeline/,
  },
  {
    name: 'a file without a graph header',
    source: '// a pipeline\na -> b\n',
    line: 2,
    column: 1,
    shortMessage: 'A pipeline file must start with "digraph <name> {"',
    hint: /digraph my_pipeline/,
  },
  {
    name: 'a file without a graph',
    source: '// nothing here\n',
    line: 2,
    column: 1,
    shortMessage: 'The file holds no graph',
    hint: /digraph my_pipeline/,
  },
  {
    name: 'an unclosed block comment',
    source: 'digraph G {\n  a /* note\n}',
    line: 2,
    column: 5,
    shortMessage: 'This block comment is never closed',
    hint: /"\*\/"/,
  },
  {
    name: 'a keyword used as a node id',
    source: 'digraph G {\n  a -> Node\n}',
    line: 2,
    column: 8,
    shortMessage: '"Node" is a keyword and cannot be a node id',
    hint: /case-insensitive/,
  },
  {
    name: 'an edge to a subgraph',
    source: 'digraph G {\n  a -> { b c }\n}',
    line: 2,
    column: 8,
    shortMessage: 'An edge to a subgraph is not supported',
    hint: /one edge per target node/,
  },
  {
    name: 'a missing value',
    source: 'digraph G {\n  a [label=]\n}',
    line: 2,
    column: 12,
    shortMessage: 'Unexpected "]": expected an attribute value',
    hint: /quoted string/,
  },
  {
    name: 'an unexpected character',
    source: 'digraph G {\n  a @ b\n}',
    line: 2,
    column: 5,
    shortMessage: 'Unexpected "@": expected "{", an attribute name, a node id, ";", "[" or "->"',
    hint: /bare identifiers/,
  },
  {
    name: 'text after the graph',
    source: 'digraph G {\n  a\n}\n}\n',
    line: 4,
    column: 1,
    shortMessage: 'Unexpected text after the end of the graph (its closing "}" is at line 3, column 1)',
    hint: /"}" too many/,
  },
  {
    name: 'an extra word in the graph header',
    source: 'digraph My Pipeline {\n  a\n}',
    line: 1,
    column: 12,
    shortMessage: 'Unexpected "Pipeline" in the graph header: expected "{"',
    hint: /digraph my_pipeline \{/,
  },
  {
    name: 'a numeric graph name',
    source: 'digraph 12 {\n  a\n}',
    line: 1,
    column: 9,
    shortMessage: 'Graph ids must be bare identifiers; 12 is a number',
    hint: /digraph n12/,
  },
];

describe('parseDot rejections (spec §2.3, docs/architecture.md "Parsing")', () => {
  it.each(rejections)('rejects $name at $line:$column with a fix', (rejection) => {
    const error = syntaxErrorOf(rejection.source);
    expect(error.shortMessage).toBe(rejection.shortMessage);
    expect(error.location).toMatchObject({ line: rejection.line, column: rejection.column });
    expect(error.hint).toMatch(rejection.hint);
  });
});

describe('DotSyntaxError (CONTRIBUTING.md "Errors")', () => {
  it('carries code, filename, location with offset, span, and a message with excerpt, caret and hint', () => {
    const error = syntaxErrorOf('digraph G {\n  start -> a\n  a -- b\n}', 'flows/review.dot');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('DotSyntaxError');
    expect(error.code).toBe('DOT_SYNTAX');
    expect(error.filename).toBe('flows/review.dot');
    expect(error.location).toEqual({ line: 3, column: 5, offset: 29 });
    expect(error.span.end).toEqual({ line: 3, column: 7, offset: 31 });
    expect(error.message).toBe(
      [
        'flows/review.dot:3:5: Undirected edge "--" is not supported',
        '  2 |   start -> a',
        '> 3 |   a -- b',
        '    |     ^^',
        '  4 | }',
        'Hint: Write edges with "->": pipelines are directed (spec §2.3).',
      ].join('\n'),
    );
  });

  it('says "line, column" when there is no file name', () => {
    let caught: unknown;
    try {
      parseDot('digraph G { a -- b }');
    } catch (error) {
      caught = error;
    }
    expect(DotSyntaxError.isInstance(caught) && caught.filename).toBe(undefined);
    expect(DotSyntaxError.isInstance(caught) && caught.message.split('\n')[0]).toBe(
      'line 1, column 15: Undirected edge "--" is not supported',
    );
  });

  it('is recognised by isInstance through its Symbol.for marker, not by class identity', () => {
    const lookalike = Object.assign(new Error('x'), { [Symbol.for('attractor.error.DotSyntaxError')]: true });
    expect(DotSyntaxError.isInstance(lookalike)).toBe(true);
    expect(DotSyntaxError.isInstance(new Error('x'))).toBe(false);
    expect(DotSyntaxError.isInstance('DOT_SYNTAX')).toBe(false);
    expect(DotSyntaxError.isInstance(null)).toBe(false);
  });
});
