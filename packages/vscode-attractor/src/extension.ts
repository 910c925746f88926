/**
 * The VS Code extension of Attractor: starts the language server (`attractor lsp`, see @attractor/language-server)
 * for DOT files, and adds a preview of the pipeline's graph (the server's `attractor/render` request). Highlighting
 * comes from the TextMate grammar in syntaxes/dot.tmLanguage.json.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type ServerOptions, TransportKind } from 'vscode-languageclient/node';

/** The request of the language server that renders an open pipeline as SVG. */
const RENDER_REQUEST = 'attractor/render';
/** Milliseconds after the last change before an open preview is drawn again. */
const PREVIEW_DELAY_MS = 300;

let client: LanguageClient | undefined;

/** Starts the language client; registers the preview and restart commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand('attractor.preview', () => openPreview(context)),
    vscode.commands.registerCommand('attractor.restartServer', async () => {
      await client?.dispose();
      client = createClient();
      await client.start();
    }),
  );
  await client.start();
}

/** Stops the language server. */
export async function deactivate(): Promise<void> {
  await client?.dispose();
  client = undefined;
}

function createClient(): LanguageClient {
  const configured = vscode.workspace.getConfiguration('attractor').get<string>('server.path', '').trim();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const local = folder === undefined ? undefined : join(folder, 'node_modules', '.bin', 'attractor');
  const command =
    configured !== '' ? configured : local !== undefined && existsSync(local) ? local : 'attractor';
  // TransportKind.stdio adds `--stdio`, which `attractor lsp` accepts.
  const serverOptions: ServerOptions = {
    command,
    args: ['lsp'],
    transport: TransportKind.stdio,
    options: { ...(folder === undefined ? {} : { cwd: folder }), shell: process.platform === 'win32' },
  };
  return new LanguageClient('attractor', 'Attractor', serverOptions, {
    documentSelector: [
      { scheme: 'file', language: 'dot' },
      { scheme: 'untitled', language: 'dot' },
    ],
    synchronize: {
      // A config, a sub-pipeline or a prompt file changed: the server lints the open pipelines again.
      fileEvents: vscode.workspace.createFileSystemWatcher(
        '**/{attractor.config.{js,mjs,ts},*.dot,*.gv,*.md}',
      ),
    },
  });
}

/** Opens (or reveals) a preview of the active pipeline beside it, drawn again as the pipeline changes. */
async function openPreview(context: vscode.ExtensionContext): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== 'dot') {
    await vscode.window.showInformationMessage('Open a pipeline (a .dot file) to preview it.');
    return;
  }
  const document = editor.document;
  const panel = vscode.window.createWebviewPanel(
    'attractor.preview',
    `Preview ${document.fileName.split(/[\\/]/).at(-1) ?? ''}`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: false },
  );
  let timer: NodeJS.Timeout | undefined;
  const draw = async () => {
    try {
      const result = await client?.sendRequest<{ svg: string }>(RENDER_REQUEST, {
        uri: document.uri.toString(),
      });
      panel.webview.html = page(
        result === undefined
          ? message('The language server is not running.')
          : result.svg.replace(/^<\?xml[^>]*>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/, ''),
      );
    } catch (error) {
      panel.webview.html = page(message(error instanceof Error ? error.message : String(error)));
    }
  };
  const changes = vscode.workspace.onDidChangeTextDocument((event) => {
    if (event.document !== document) return;
    clearTimeout(timer);
    timer = setTimeout(() => void draw(), PREVIEW_DELAY_MS);
  });
  panel.onDidDispose(() => {
    clearTimeout(timer);
    changes.dispose();
  });
  context.subscriptions.push(panel, changes);
  await draw();
}

function message(text: string): string {
  return `<p>${text.replace(/[&<>]/g, (character) => `&#${character.charCodeAt(0)};`)}</p>`;
}

/** A webview page around an SVG (inline styles only: the page runs no script). */
function page(body: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;"><style>body{background:#fff;color:#222;margin:0;padding:1em}svg{max-width:100%;height:auto}</style></head><body>${body}</body></html>`;
}
