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
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
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
