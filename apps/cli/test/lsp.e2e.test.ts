/**
 * `attractor lsp` as an editor starts it (`attractor lsp --stdio`), driven by a real LSP client: plug-in handlers of
 * the project's attractor.config.* are linted and offered, its MCP server names checked, a config that changes or breaks is read again, and the
 * preview renders the pipeline.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompletionRequest,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  HoverRequest,
  type MarkupContent,
} from 'vscode-languageserver-protocol/node';
import { BIN, childEnv, temporaryDirectory } from './helpers/cli.js';
import { type LspSession, startLspSession } from './helpers/lsp.js';

const PLUGIN = fileURLToPath(new URL('./fixtures/plugin/', import.meta.url));
let session: LspSession;
let project: string;

beforeAll(async () => {
  project = await temporaryDirectory('attractor-lsp-e2e-');
  session = await startLspSession({
    command: process.execPath,
    args: [BIN, 'lsp', '--stdio'],
    cwd: project,
    env: childEnv(),
    rootUri: pathToFileURL(project).href,
  });
});

afterAll(async () => {
  expect(await session.close()).toBe(0);
});

describe('attractor lsp', () => {
  it('lints, explains and completes a plug-in handler’s attributes from the project config', async () => {
    const uri = pathToFileURL(join(PLUGIN, 'bad-region.dot')).href;
    const text = readFileSync(join(PLUGIN, 'bad-region.dot'), 'utf8');
    session.open(uri, text);
    const diagnostics = await session.diagnostics(uri, { version: 1 });
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'attribute_type',
        severity: 1,
        message: expect.stringContaining('region="mars", which its deploy handler does not accept'),
        range: { start: { line: 3, character: 30 }, end: { line: 3, character: 36 } },
      }),
    ]);
    const hover = await session.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 3, character: 23 },
    });
    expect((hover!.contents as MarkupContent).value).toContain(
      '**region** · attribute of the `deploy` handler',
    );
    session.change(uri, 2, [{ text: text.replace('region="mars"]', 'region="mars", ]') }]);
    const completion = await session.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: { line: 3, character: 38 },
    });
    const items = Array.isArray(completion) ? completion : (completion?.items ?? []);
    expect(items.map((item) => item.label)).toContain('max_retries');
    expect(items.map((item) => item.label)).not.toContain('region');
    expect(items.map((item) => item.label)).not.toContain('prompt');
  });

  it('offers the models of the price table for llm_model', async () => {
    const uri = pathToFileURL(join(project, 'models.dot')).href;
    const text = 'digraph M {\n  plan [llm_model=""]\n}\n';
    session.open(uri, text);
    const completion = await session.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: { line: 1, character: 19 },
    });
    const items = Array.isArray(completion) ? completion : (completion?.items ?? []);
    expect(items.map((item) => item.label)).toContain('claude-sonnet-4-6');
  });

  it('reads the config again when it changes, and says on the file when it does not load', async () => {
    const directory = join(project, 'pipelines');
    await mkdir(directory);
    const uri = pathToFileURL(join(directory, 'ship.dot')).href;
    const text =
      'digraph Ship {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  ship [type="deploy"]\n  start -> ship -> exit\n}\n';
    const config = join(project, 'attractor.config.mjs');
    session.open(uri, text);
    let version = 1;
    const codes = async () => (await session.diagnostics(uri, { version })).map((d) => d.code);
    expect(await codes()).toContain('type_known');

    // A config one directory up registers the handler (a plain handler: no package to import).
    await writeFile(
      config,
      "export default { handlers: { deploy: { async execute() { return { status: 'success' }; } } } };\n",
    );
    session.change(uri, ++version, [{ text }]);
    expect(await codes()).not.toContain('type_known');

    // A syntax error: said on the file, which is checked without plug-ins meanwhile.
    await writeFile(config, 'export default { handlers: { deploy: ; } };\n');
    await session.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: pathToFileURL(config).href, type: FileChangeType.Changed }],
    });
    session.change(uri, ++version, [{ text }]);
    const broken = await session.diagnostics(uri, { version });
    expect(broken[0]).toMatchObject({ code: 'config', severity: 1 });
    expect(broken[0]!.message).toContain('attractor.config.mjs failed to load');
    expect(broken.map((d) => d.code)).toContain('type_known');

    await writeFile(
      config,
      "export default { handlers: { deploy: { async execute() { return { status: 'success' }; } } } };\n",
    );
    session.change(uri, ++version, [{ text }]);
    const fixed = await codes();
    expect(fixed).not.toContain('config');
    expect(fixed).not.toContain('type_known');
  });

  it('reports an mcp_servers name the project config does not define', async () => {
    const directory = join(project, 'with-mcp');
    await mkdir(directory);
    await writeFile(
      join(directory, 'attractor.config.mjs'),
      "export default { mcpServers: { docs: { command: 'node', args: ['docs-server.mjs'] } } };\n",
    );
    const uri = pathToFileURL(join(directory, 'ask.dot')).href;
    const text =
      'digraph Ask {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  ask [prompt="Look it up", mcp_servers="dcos"]\n  start -> ask -> exit\n}\n';
    session.open(uri, text);
    const diagnostics = await session.diagnostics(uri, { version: 1 });
    expect(diagnostics.find((diagnostic) => diagnostic.code === 'mcp_server_known')?.message).toContain(
      'Node "ask" has mcp_servers naming "dcos", which the configuration does not define (it defines docs). Did you mean "docs"?',
    );
    session.change(uri, 2, [{ text: text.replace('"dcos"', '"docs"') }]);
    expect(
      (await session.diagnostics(uri, { version: 2 })).map((diagnostic) => diagnostic.code),
    ).not.toContain('mcp_server_known');
  });

  it('renders the pipeline as SVG for the preview', async () => {
    const uri = pathToFileURL(join(PLUGIN, 'release.dot')).href;
    session.open(uri, readFileSync(join(PLUGIN, 'release.dot'), 'utf8'));
    const { svg } = (await session.connection.sendRequest('attractor/render', { uri })) as { svg: string };
    expect(svg).toMatch(/^<\?xml|<svg/);
    expect(svg).toContain('ship');
    await expect(
      session.connection.sendRequest('attractor/render', {
        uri: pathToFileURL(join(project, 'none.dot')).href,
      }),
    ).rejects.toThrow('is not open');
  });
});
