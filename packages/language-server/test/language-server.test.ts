/**
 * The language server over stdio, driven by a real LSP client (vscode-languageserver-protocol): a project of real
 * files in a temporary directory, opened and edited as an editor does.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatPipeline } from '@attractor/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeActionRequest,
  CompletionRequest,
  DefinitionRequest,
  type Diagnostic,
  DocumentFormattingRequest,
  DocumentLinkRequest,
  DocumentSymbolRequest,
  HoverRequest,
  type Location,
  type MarkupContent,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  type TextEdit,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type LspSession, startLspSession } from './lsp-session.js';

const SERVER = fileURLToPath(new URL('./fixtures/start-server.mjs', import.meta.url));

const PIPELINE = `digraph Review {
  graph [goal="Ship the release"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [label="Plan", prompt="@prompts/plan.md"]
  build [shape=parallelogram, tool_command="make", timeout="300"]
  review [label="Review", class="critical", prompt="Review it: $goal"]
  checks [type="subgraph", graph_ref="checks.dot"]
  start -> plan -> build -> review -> checks -> exit
  review -> plan [condition="outcome=fail", label="fix"]
}
`;

/** The position of the `nth` occurrence of `needle` in `text`, `delta` characters into it. */
function positionOf(text: string, needle: string, options: { nth?: number; delta?: number } = {}) {
  let offset = -1;
  for (let count = 0; count <= (options.nth ?? 0); count++) offset = text.indexOf(needle, offset + 1);
  if (offset === -1) throw new Error(`"${needle}" is not in the text`);
  return TextDocument.create('x', 'dot', 1, text).positionAt(offset + (options.delta ?? 0));
}

function rangeOf(text: string, needle: string, nth = 0) {
  const start = positionOf(text, needle, { nth });
  return { start, end: { line: start.line, character: start.character + needle.length } };
}

function applyEdits(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('x', 'dot', 1, text), [...edits]);
}

function hoverText(hover: { contents: unknown } | null): string {
  return (hover?.contents as MarkupContent | undefined)?.value ?? '';
}

let session: LspSession;
/** The document's version: every change the client sends has a higher one. */
let version = 1;
let project: string;
let uri: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'attractor-lsp-'));
  mkdirSync(join(project, 'prompts'));
  writeFileSync(join(project, 'prompts', 'plan.md'), 'Plan the release: $goal\n');
  writeFileSync(
    join(project, 'checks.dot'),
    'digraph Checks {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n',
  );
  writeFileSync(join(project, 'review.dot'), PIPELINE);
  uri = pathToFileURL(join(project, 'review.dot')).href;
  session = await startLspSession({
    command: process.execPath,
    args: [SERVER],
    cwd: project,
    env: { DEBOUNCE_MS: '20' },
    rootUri: pathToFileURL(project).href,
  });
});

afterAll(async () => {
  expect(await session.close()).toBe(0);
});

describe('the language server over stdio', () => {
  it('says what it can do', () => {
    const { capabilities } = session.initialized;
    expect(capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      documentSymbolProvider: true,
      documentFormattingProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
    });
  });

  it('publishes the lint diagnostics of an opened file at the rules’ spans', async () => {
    session.open(uri, PIPELINE);
    const diagnostics = await session.diagnostics(uri, { version: 1 });
    const unit = diagnostics.find((diagnostic) => diagnostic.code === 'duration_unit');
    expect(unit).toMatchObject({
      severity: 2,
      source: 'attractor',
      range: rangeOf(PIPELINE, '"300"'),
      message: expect.stringContaining('timeout="300" without a unit'),
    });
    // The prompt file and the sub-pipeline exist: no prompt_file or subgraph_ref finding.
    expect(diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('prompt_file');
    expect(diagnostics.map((diagnostic) => diagnostic.code)).not.toContain('subgraph_ref');
  });

  it('lints again as the user types (incremental changes), with ranges in the new text', async () => {
    const edge = positionOf(PIPELINE, 'review -> plan');
    // Typing a typo into the second edge: `review -> plan` becomes `review -> plna`.
    session.change(uri, ++version, [
      {
        range: { start: { line: edge.line, character: 12 }, end: { line: edge.line, character: 16 } },
        text: 'plna',
      },
    ]);
    const text = PIPELINE.replace('review -> plan', 'review -> plna');
    const diagnostics = await session.diagnostics(uri, { version });
    const target = diagnostics.find((diagnostic) => diagnostic.code === 'edge_target_exists');
    expect(target).toMatchObject({ severity: 1, range: rangeOf(text, 'plna') });
    expect(target!.message).toContain('Did you mean "plan"?');
    // And back: the whole text replaced, as some clients send it.
    session.change(uri, ++version, [{ text: PIPELINE }]);
    const fixed = await session.diagnostics(uri, { version });
    expect(fixed.map((diagnostic) => diagnostic.code)).not.toContain('edge_target_exists');
  });

  it('reports a syntax error at the parser’s span', async () => {
    const broken = PIPELINE.replace('label="fix"]', 'label="fix"');
    session.change(uri, ++version, [{ text: broken }]);
    const [syntax] = await session.diagnostics(uri, { version });
    expect(syntax).toMatchObject({ code: 'dot_syntax', severity: 1 });
    expect(syntax!.range.start).toEqual(positionOf(broken, '[condition'));
    session.change(uri, ++version, [{ text: PIPELINE }]);
    await session.diagnostics(uri, { version });
  });

  it('explains attributes, node ids and $goal on hover', async () => {
    const request = (position: { line: number; character: number }) =>
      session.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    const timeout = await request(positionOf(PIPELINE, 'timeout', { delta: 2 }));
    expect(hoverText(timeout)).toContain('**timeout** · node attribute');
    expect(hoverText(timeout)).toContain('Maximum time of one attempt.');
    expect(hoverText(timeout)).toContain('- value: a duration such as 250ms, 900s, 15m, 2h or 1d');
    expect(hoverText(timeout)).toContain('- default: no limit');
    expect(hoverText(timeout)).toContain('- spec §2.6');
    expect(timeout!.range).toEqual(rangeOf(PIPELINE, 'timeout'));

    const node = await request(positionOf(PIPELINE, 'review ->', { delta: 1 }));
    expect(hoverText(node)).toContain('**review** · `codergen` node (shape box)');
    expect(hoverText(node)).toContain('from: `build`');
    expect(hoverText(node)).toContain('to: `checks`, `plan [outcome=fail]`');

    const goal = await request(positionOf(PIPELINE, '$goal', { delta: 2 }));
    expect(hoverText(goal)).toContain("**$goal** · the graph's goal");
    expect(hoverText(goal)).toContain('> Ship the release');

    const shape = await request(positionOf(PIPELINE, 'parallelogram', { delta: 3 }));
    expect(hoverText(shape)).toContain('**shape=parallelogram** · the `tool` handler (spec §2.8)');
  });

  it('completes keys valid for the node’s handler, values, node ids and condition parts', async () => {
    const complete = async (text: string, position: { line: number; character: number }) => {
      session.change(uri, ++version, [{ text }]);
      const result = await session.connection.sendRequest(CompletionRequest.type, {
        textDocument: { uri },
        position,
      });
      return Array.isArray(result) ? result : (result?.items ?? []);
    };
    // A tool node: its handler's keys, not an LLM stage's; keys already written are not offered again.
    let text = PIPELINE.replace('timeout="300"]', 'timeout="300", ]');
    let items = await complete(text, positionOf(text, ', ]', { delta: 2 }));
    let labels = items.map((item) => item.label);
    expect(labels).toContain('tool_output_max_bytes');
    expect(labels).toContain('max_retries');
    expect(labels).not.toContain('prompt');
    expect(labels).not.toContain('tool_command');
    expect(items.find((item) => item.label === 'tool_output_max_bytes')!.textEdit).toMatchObject({
      newText: 'tool_output_max_bytes=',
    });
    // An LLM node: prompt, model, reasoning effort.
    text = PIPELINE.replace('[label="Plan",', '[label="Plan", re');
    items = await complete(text, positionOf(text, ', re', { delta: 4 }));
    labels = items.map((item) => item.label);
    expect(labels).toContain('reasoning_effort');
    expect(labels).toContain('llm_model');
    // Values: shapes with their handler types.
    text = PIPELINE.replace('shape=parallelogram', 'shape=');
    items = await complete(text, positionOf(text, 'shape=,', { delta: 6 }));
    expect(items.find((item) => item.label === 'hexagon')).toMatchObject({ detail: 'wait.human handler' });
    // An enumeration inside quotes.
    text = PIPELINE.replace('[label="Plan",', '[label="Plan", reasoning_effort="",');
    items = await complete(text, positionOf(text, 'reasoning_effort=""', { delta: 18 }));
    expect(items.map((item) => item.label)).toEqual(['low', 'medium', 'high']);
    // Node ids after ->.
    text = PIPELINE.replace('review -> plan [', 'review -> p [');
    items = await complete(text, positionOf(text, 'review -> p', { delta: 11 }));
    expect(items.map((item) => item.label)).toEqual(
      expect.arrayContaining(['start', 'exit', 'plan', 'build', 'review', 'checks']),
    );
    // retry_target names a node.
    text = PIPELINE.replace('[label="Plan",', '[label="Plan", retry_target=,');
    items = await complete(text, positionOf(text, 'retry_target=,', { delta: 13 }));
    expect(items.map((item) => item.label)).toContain('review');
    // Condition keys, then outcomes.
    text = PIPELINE.replace('condition="outcome=fail"', 'condition=""');
    items = await complete(text, positionOf(text, 'condition=""', { delta: 11 }));
    expect(items.map((item) => item.label)).toEqual(
      expect.arrayContaining(['outcome', 'preferred_label', 'context.last_stage']),
    );
    text = PIPELINE.replace('condition="outcome=fail"', 'condition="outcome="');
    items = await complete(text, positionOf(text, 'outcome="', { delta: 8 }));
    expect(items.map((item) => item.label)).toEqual(expect.arrayContaining(['success', 'fail', 'retry']));
    session.change(uri, ++version, [{ text: PIPELINE }]);
    await session.diagnostics(uri, { version });
  });

  it('goes to the definition of a node id, a sub-pipeline and a prompt file', async () => {
    const definition = (position: { line: number; character: number }) =>
      session.connection.sendRequest(DefinitionRequest.type, {
        textDocument: { uri },
        position,
      }) as Promise<Location[]>;
    expect(await definition(positionOf(PIPELINE, 'plan ->', { delta: 1 }))).toEqual([
      { uri, range: rangeOf(PIPELINE, 'plan') },
    ]);
    expect(await definition(positionOf(PIPELINE, 'checks.dot', { delta: 2 }))).toEqual([
      {
        uri: pathToFileURL(join(project, 'checks.dot')).href,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      },
    ]);
    expect((await definition(positionOf(PIPELINE, '@prompts', { delta: 3 })))[0]!.uri).toBe(
      pathToFileURL(join(project, 'prompts', 'plan.md')).href,
    );
    const links = await session.connection.sendRequest(DocumentLinkRequest.type, { textDocument: { uri } });
    expect(links?.map((link) => link.target)).toEqual([
      pathToFileURL(join(project, 'prompts', 'plan.md')).href,
      pathToFileURL(join(project, 'checks.dot')).href,
    ]);
  });

  it('goes from a class to the stylesheet rule that selects it, and finds every use of it', async () => {
    const text = PIPELINE.replace(
      'graph [goal="Ship the release"]',
      'graph [goal="Ship the release", model_stylesheet=".critical { reasoning_effort: high; }"]',
    );
    session.change(uri, ++version, [{ text }]);
    const [definition] = (await session.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri },
      position: positionOf(text, 'critical"', { delta: 2 }),
    })) as Location[];
    expect(definition!.range).toEqual(rangeOf(text, 'critical'));
    const references = await session.connection.sendRequest(ReferencesRequest.type, {
      textDocument: { uri },
      position: positionOf(text, 'critical', { delta: 1 }),
      context: { includeDeclaration: true },
    });
    expect(references?.map((location) => location.range)).toEqual([
      rangeOf(text, 'critical'),
      rangeOf(text, 'critical', 1),
    ]);
    session.change(uri, ++version, [{ text: PIPELINE }]);
    await session.diagnostics(uri, { version });
  });

  it('finds the references of a node and renames it across the file', async () => {
    const position = positionOf(PIPELINE, 'plan [');
    const references = await session.connection.sendRequest(ReferencesRequest.type, {
      textDocument: { uri },
      position,
      context: { includeDeclaration: true },
    });
    expect(references?.map((location) => location.range)).toEqual([
      rangeOf(PIPELINE, 'plan'),
      rangeOf(PIPELINE, 'plan', 2),
      rangeOf(PIPELINE, 'plan', 3),
    ]);
    expect(
      await session.connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri }, position }),
    ).toEqual({ range: rangeOf(PIPELINE, 'plan'), placeholder: 'plan' });
    const edit = await session.connection.sendRequest(RenameRequest.type, {
      textDocument: { uri },
      position,
      newName: 'draft',
    });
    const renamed = applyEdits(PIPELINE, edit!.changes![uri]!);
    expect(renamed).toContain('  draft [label="Plan", prompt="@prompts/plan.md"]');
    expect(renamed).toContain('start -> draft -> build');
    expect(renamed).toContain('review -> draft [condition');
    // A name that is taken, or not an identifier, is refused with the reason.
    await expect(
      session.connection.sendRequest(RenameRequest.type, {
        textDocument: { uri },
        position,
        newName: 'review',
      }),
    ).rejects.toThrow('There is already a node "review"');
    await expect(
      session.connection.sendRequest(RenameRequest.type, {
        textDocument: { uri },
        position,
        newName: 'two words',
      }),
    ).rejects.toThrow('cannot be a node id');
  });

  it('formats the file like attractor fmt', async () => {
    const messy = PIPELINE.replace('  start [shape=Mdiamond]', 'start [shape="Mdiamond"];');
    session.change(uri, ++version, [{ text: messy }]);
    const edits = await session.connection.sendRequest(DocumentFormattingRequest.type, {
      textDocument: { uri },
      options: { tabSize: 2, insertSpaces: true },
    });
    expect(applyEdits(messy, edits!)).toBe(formatPipeline(messy));
    expect(applyEdits(messy, edits!)).toContain('  start [shape=Mdiamond]\n');
  });

  it('offers a lint fix as a quick fix, and applying it clears the diagnostic', async () => {
    session.change(uri, ++version, [{ text: PIPELINE }]);
    const diagnostics = await session.diagnostics(uri, { version });
    const unit = diagnostics.find((diagnostic) => diagnostic.code === 'duration_unit')!;
    const actions = await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: unit.range,
      context: { diagnostics: [unit] },
    });
    expect(actions).toHaveLength(1);
    const [action] = actions as [
      { title: string; kind: string; edit: { changes: Record<string, TextEdit[]> } },
    ];
    expect(action).toMatchObject({
      title: 'Write timeout="300s" (units: ms, s, m, h, d).',
      kind: 'quickfix',
    });
    const fixed = applyEdits(PIPELINE, action.edit.changes[uri]!);
    expect(fixed).toContain('timeout="300s"');
    session.change(uri, ++version, [{ text: fixed }]);
    const after: Diagnostic[] = await session.diagnostics(uri, { version });
    expect(after.map((diagnostic) => diagnostic.code)).not.toContain('duration_unit');
  });

  it('lists nodes and subgraphs as document symbols', async () => {
    const text = PIPELINE.replace(
      '  checks [',
      '  subgraph cluster_checks {\n    label="Checks"\n    checks [',
    ).replace('graph_ref="checks.dot"]', 'graph_ref="checks.dot"]\n  }');
    session.change(uri, ++version, [{ text }]);
    const symbols = (await session.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri },
    })) as {
      name: string;
      detail?: string;
      children?: { name: string; detail?: string; children?: unknown[] }[];
    }[];
    expect(symbols.map((symbol) => symbol.name)).toEqual(['Review']);
    const children = symbols[0]!.children!;
    expect(children.map((child) => child.name)).toEqual([
      'start',
      'exit',
      'plan',
      'build',
      'review',
      'cluster_checks',
    ]);
    expect(children.find((child) => child.name === 'build')!.detail).toBe('tool');
    expect(children.at(-1)).toMatchObject({
      detail: 'Checks',
      children: [{ name: 'checks', detail: 'subgraph' }],
    });
  });
});
