/**
 * `formatPipeline` keeps the graph: parse → format → parse builds the same graph (every node, edge and attribute with
 * its value, alias and origin; only source positions differ) with the same lint findings, and formatting the result
 * again changes nothing. Over the examples, the test fixtures, the shared corpus (when present) and generated files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DotSyntaxError, parseDot } from '@attractor/dot';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import { buildGraph, formatPipeline, type Graph, prepareGraph } from '../src/index.js';

/** Everything a graph says, without where it was written. */
function meaning(graph: Graph): unknown {
  const positions = new Set(['span', 'idSpan', 'keySpan', 'valueSpan', 'kind', 'source', 'filename']);
  return JSON.parse(
    JSON.stringify(
      { id: graph.id, attributes: graph.attributes, nodes: [...graph.nodes.values()], edges: graph.edges },
      (key, value) => (positions.has(key) ? undefined : value),
    ),
  );
}

function findings(source: string): string[] {
  return prepareGraph(source).diagnostics.map(
    (diagnostic) =>
      `${diagnostic.severity} ${diagnostic.rule} ${diagnostic.nodeId ?? ''} ${diagnostic.edge?.from ?? ''}->${diagnostic.edge?.to ?? ''}`,
  );
}

/** The three properties, for one source text. */
function expectRoundTrip(source: string, name: string): void {
  const formatted = formatPipeline(source, { filename: name });
  expect(formatPipeline(formatted), `${name}: formatting twice changes nothing`).toBe(formatted);
  expect(meaning(buildGraph(parseDot(formatted))), `${name}: same graph`).toEqual(
    meaning(buildGraph(parseDot(source))),
  );
  expect(findings(formatted).sort(), `${name}: same lint findings`).toEqual(findings(source).sort());
}

const repository = fileURLToPath(new URL('../../../', import.meta.url));
const examples = readdirSync(join(repository, 'examples/pipelines'))
  .filter((name) => name.endsWith('.dot'))
  .map((name) => join(repository, 'examples/pipelines', name));
const fixtures = readdirSync(join(repository, 'packages/graph/test/fixtures'))
  .filter((name) => name.endsWith('.dot'))
  .map((name) => join(repository, 'packages/graph/test/fixtures', name));

describe('formatPipeline', () => {
  it('writes the canonical layout: attribute order, quoting, indentation, comments kept', () => {
    const source = [
      '// Review pipeline',
      'Digraph Review { graph [label=Review, goal="Ship it"]; rankdir=LR',
      '  start [shape="Mdiamond"]; exit [shape=Msquare]',
      '',
      '',
      '  /* the work */',
      '  work [prompt="$goal", max_retries="2", label=Work, timeout=900s, human.default_choice=exit] // main',
      '  gate [label="Ship?" shape=hexagon]',
      '  start -> work -> gate; gate -> exit [label="[Y] Yes" weight=2]',
      '  gate -> work [condition="outcome=fail", label=Again]',
      '  subgraph cluster_loop { label="Loop"; node [fidelity="full"] }',
      '}',
    ].join('\n');
    expect(formatPipeline(source)).toBe(
      [
        '// Review pipeline',
        'digraph Review {',
        '  graph [label="Review", goal="Ship it"]',
        '  rankdir=LR',
        '  start [shape=Mdiamond]',
        '  exit [shape=Msquare]',
        '',
        '  /* the work */',
        '  work [label="Work", max_retries=2, timeout="900s", "human.default_choice"="exit", prompt="$goal"] // main',
        '  gate [shape=hexagon, label="Ship?"]',
        '  start -> work -> gate',
        '  gate -> exit [label="[Y] Yes", weight=2]',
        '  gate -> work [label="Again", condition="outcome=fail"]',
        '  subgraph cluster_loop {',
        '    label="Loop"',
        '    node [fidelity=full]',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('writes a long or commented attribute list one attribute per line, string contents unchanged', () => {
    const source = `digraph G {
  plan [label="Plan", prompt="Line one
  line two \\"quoted\\" \\\\ end", // the prompt
    goal_gate=true]
  review [label="Review the whole change set carefully", prompt="Read every file that changed and say what is wrong"]
}
`;
    expect(formatPipeline(source)).toBe(`digraph G {
  plan [
    label="Plan",
    goal_gate=true,
    prompt="Line one
  line two \\"quoted\\" \\\\ end" // the prompt
  ]
  review [
    label="Review the whole change set carefully",
    prompt="Read every file that changed and say what is wrong"
  ]
}
`);
  });

  it('keeps a repeated key and an alias in their written order (the last one wins)', () => {
    const source = 'digraph G { a [llm_prompt="first", label=A, prompt="second", prompt="third"] }';
    const formatted = formatPipeline(source);
    expect(formatted).toContain('a [label="A", llm_prompt="first", prompt="second", prompt="third"]');
    expectRoundTrip(source, 'alias.dot');
  });

  it('refuses a file that does not parse with the parser’s error', () => {
    expect(() => formatPipeline('digraph G { a -> }', { filename: 'broken.dot' })).toThrow(DotSyntaxError);
  });

  it.each([...examples, ...fixtures])('round-trips %s', (path) => {
    expectRoundTrip(readFileSync(path, 'utf8'), path);
  });
});

const corpusDirectory = corpusDotDirectory('the formatPipeline corpus round trip of @attractor/graph');
const corpusFiles = (corpusDirectory === undefined ? [] : readdirSync(corpusDirectory))
  .filter((name) => name.endsWith('.dot'))
  .sort();

describe.skipIf(corpusDirectory === undefined)('formatPipeline over the corpus', () => {
  it.each(corpusFiles)('round-trips %s', (name) => {
    expectRoundTrip(readFileSync(join(corpusDirectory!, name), 'utf8'), name);
  });
});

// ---- generated pipelines ----

const ids = fc.constantFrom('start', 'exit', 'plan', 'review', 'a', 'b_2', 'Impl', 'x');
const keys = fc.constantFrom(
  'label',
  'shape',
  'type',
  'prompt',
  'llm_prompt',
  'max_retries',
  'goal_gate',
  'timeout',
  'condition',
  'weight',
  'fidelity',
  'class',
  'tool_command',
  'script',
  'region',
  'var.diff',
  'human.default_choice',
  'color',
  'rankdir',
  'xlabel',
);
const words = fc.constantFrom(
  'box',
  'Mdiamond',
  'true',
  '2',
  '-1',
  '.5',
  '900s',
  'summary:high',
  'a.b',
  'node',
);
const text = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\\', '\n', '$', '#', '/', '*', 'é', '{', ']', '=', 'n'),
  maxLength: 12,
});

/** A value written bare, quoted (escapes or literal line breaks), or as a concatenation. */
const value = fc.oneof(
  words,
  text.map((content) => `"${content.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`),
  fc
    .tuple(text, text, fc.boolean())
    .map(
      ([left, right, newline]) =>
        `"${left.replace(/[\\"]/g, '')}"${newline ? '\n    ' : ' '}+ "${right.replace(/[\\"]/g, '')}"`,
    ),
);
const attribute = fc
  .tuple(keys, value)
  .map(([key, written]) => `${key.includes('.') ? `"${key}"` : key}=${written}`);
const separator = fc.constantFrom(', ', ' ', '; ', ',\n    ');
const attributes = fc
  .array(fc.tuple(attribute, separator), { maxLength: 4 })
  .map((list) => (list.length === 0 ? '' : ` [${list.map(([item, sep]) => item + sep).join('')}]`));
const comment = fc.constantFrom('// note', '/* block */', '/* two\n   lines */', '# hash line', '');
const simpleStatement = fc.oneof(
  fc.tuple(ids, attributes).map(([id, list]) => `${id}${list}`),
  fc
    .tuple(fc.array(ids, { minLength: 2, maxLength: 3 }), attributes)
    .map(([chain, list]) => `${chain.join(' -> ')}${list}`),
  attributes.map((list) => `node${list || ' []'}`),
  attributes.map((list) => `edge${list || ' []'}`),
  attributes.map((list) => `graph${list || ' []'}`),
  fc.tuple(fc.constantFrom('goal', 'label', 'rankdir'), value).map(([key, written]) => `${key}=${written}`),
);
const statement = fc.oneof(
  { weight: 5, arbitrary: simpleStatement },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('subgraph cluster_x ', 'subgraph s ', ''),
        fc.array(simpleStatement, { maxLength: 3 }),
      )
      .map(([head, inner]) => `${head}{ ${inner.join('\n')} }`),
  },
);
const line = fc
  .tuple(comment, statement, fc.constantFrom('', ';'), comment, fc.constantFrom('\n', '\n\n'))
  .map(([before, body, semicolon, after, gap]) => {
    const lead = before === '' ? '' : `${before}\n`;
    // A trailing comment on the statement's line: never a `#` line there, which is only one at the start of a line.
    const trail = after === '' || after.startsWith('#') ? '' : ` ${after}`;
    return `${lead}  ${body}${semicolon}${trail}${gap}`;
  });
const pipeline = fc
  .tuple(comment, fc.array(line, { maxLength: 8 }), comment)
  .map(([head, body, tail]) => `${head}\ndigraph Generated {\n${body.join('')}}\n${tail}\n`);

describe('formatPipeline on generated pipelines (property)', () => {
  it('round-trips every file that parses', () => {
    let parsed = 0;
    fc.assert(
      fc.property(pipeline, (source) => {
        try {
          parseDot(source);
        } catch (error) {
          if (DotSyntaxError.isInstance(error)) return;
          throw error;
        }
        parsed++;
        expectRoundTrip(source, 'generated.dot');
      }),
      { numRuns: 400, seed: 20261206, endOnFailure: true },
    );
    // The generator is meant to produce mostly valid files: a property that ran on none would prove nothing.
    expect(parsed).toBeGreaterThan(200);
  }, 120_000);
});
