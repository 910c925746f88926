/**
 * A 10,000-node pipeline in the language server: it is linted (in the analysis worker) and its diagnostics arrive
 * after the open and after a change, and requests are answered meanwhile. How fast is measured by
 * `pnpm --filter @attractor/language-server bench`, not here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HoverRequest,
  type MarkupContent,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { generatePipeline } from '../bench/generate-pipeline.mjs';
import { type LspSession, startLspSession } from './lsp-session.js';

const SERVER = fileURLToPath(new URL('./fixtures/start-server.mjs', import.meta.url));
const text = generatePipeline(10_000);
let session: LspSession;
let uri: string;

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), 'attractor-lsp-large-'));
  writeFileSync(join(directory, 'large.dot'), text);
  uri = pathToFileURL(join(directory, 'large.dot')).href;
  session = await startLspSession({ command: process.execPath, args: [SERVER], cwd: directory });
});

afterAll(async () => {
  await session.close();
});

describe('a 10,000-node pipeline', () => {
  it('gets its diagnostics after the open and after a change, and hovers while it is linted', async () => {
    session.open(uri, text);
    // Asked while the file is being linted: answered from the text, without waiting for the lint.
    const hover = await session.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 5 + 9_999, character: 4 },
    });
    expect((hover!.contents as MarkupContent).value).toContain('**stage_9999** · `codergen` node');
    const opened = await session.diagnostics(uri, { version: 1 });
    // Every stage routes only on success: condition_coverage warns about each; nothing is an error.
    expect(new Set(opened.map((diagnostic) => diagnostic.code))).toEqual(new Set(['condition_coverage']));

    // A typo in the last edge: the new diagnostics point at it.
    const line = text.split('\n').findIndex((row) => row.startsWith('  stage_9999 -> exit'));
    session.change(uri, 2, [
      { range: { start: { line, character: 16 }, end: { line, character: 20 } }, text: 'exti' },
    ]);
    const diagnostics = await session.diagnostics(uri, { version: 2 });
    expect(diagnostics.filter((diagnostic) => diagnostic.severity === 1).map((d) => d.code)).toEqual([
      'edge_target_exists',
    ]);
    expect(diagnostics.find((diagnostic) => diagnostic.code === 'edge_target_exists')?.range).toEqual({
      start: { line, character: 16 },
      end: { line, character: 20 },
    });
  }, 300_000);
});

describe('incremental edits to a 10,000-node pipeline', () => {
  it('end with the diagnostics of a fresh open of the final text', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'attractor-lsp-edits-'));
    const file = join(directory, 'large.dot');
    writeFileSync(file, text);
    const editedUri = pathToFileURL(file).href;
    const final = TextDocument.create(editedUri, 'dot', 1, text);
    /** A range of whole lines of the text as edited so far: from the line starting with `prefix`, `count` lines. */
    const lines = (prefix: string, count: number) => {
      const line = final
        .getText()
        .split('\n')
        .findIndex((row) => row.startsWith(prefix));
      return { start: { line, character: 0 }, end: { line: line + count, character: 0 } };
    };
    /** The range of `part` in the line starting with `prefix`. */
    const within = (prefix: string, part: string) => {
      const rows = final.getText().split('\n');
      const line = rows.findIndex((row) => row.startsWith(prefix));
      const character = rows[line]!.indexOf(part);
      return { start: { line, character }, end: { line, character: character + part.length } };
    };
    /** The range of the line that is `content`. */
    const row = (content: string) => {
      const line = final.getText().split('\n').indexOf(content);
      return { start: { line, character: 0 }, end: { line, character: content.length } };
    };
    const typing = ['s', 'st', 'stag', 'stage_0 ->', 'stage_0 -> nowhere'];
    // Applied in order, each as one didChange (a version): lines added, removed and rewritten, an edge to a node that
    // does not exist, two changes in one event, a line typed character by character.
    const edits: (() => TextDocumentContentChangeEvent[])[] = [
      () => [
        {
          range: lines('  stage_10 [', 0),
          text: '  review [shape=hexagon, label="Review?"]\n  review -> stage_11 [label="[A] Approve"]\n',
        },
      ],
      () => [{ range: lines('  stage_500 [', 3), text: '' }],
      () => [
        { range: within('  stage_9000 [', 'Stage'), text: 'Phase' },
        { range: within('  graph [', 'A large pipeline'), text: 'A changed goal' },
      ],
      () => [{ range: lines('  stage_0 -> stage_1 ', 0), text: `  ${typing[0]}\n` }],
      ...typing
        .slice(1)
        .map((typed, index) => () => [{ range: row(`  ${typing[index]}`), text: `  ${typed}` }]),
    ];
    const edited = await startLspSession({ command: process.execPath, args: [SERVER], cwd: directory });
    let finalDiagnostics: Awaited<ReturnType<LspSession['diagnostics']>>;
    try {
      edited.open(editedUri, text);
      await edited.diagnostics(editedUri, { version: 1 });
      for (const [index, edit] of edits.entries()) {
        const changes = edit();
        TextDocument.update(final, changes, index + 2);
        edited.change(editedUri, index + 2, changes);
        // After the first edit, a pause longer than the debounce delay: its lint (seconds at this size) is under way
        // when the next edits come, and its diagnostics, of an outdated text, must not be published as the newest.
        // The later edits 20 ms apart, as typing.
        await new Promise((resolve) => setTimeout(resolve, index === 0 ? 1_000 : 20));
      }
      finalDiagnostics = await edited.diagnostics(editedUri, { version: edits.length + 1 });
    } finally {
      await edited.close();
    }
    expect(finalDiagnostics.filter((diagnostic) => diagnostic.severity === 1).map((d) => d.code)).toEqual(
      expect.arrayContaining(['edge_target_exists']),
    );

    // The final text, opened in a new server (a fresh worker, no parse cache).
    const fresh = await startLspSession({ command: process.execPath, args: [SERVER], cwd: directory });
    try {
      fresh.open(editedUri, final.getText());
      expect(finalDiagnostics).toEqual(await fresh.diagnostics(editedUri, { version: 1 }));
    } finally {
      await fresh.close();
    }
  }, 600_000);
});
