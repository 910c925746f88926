/**
 * A real LSP client for the tests: `vscode-languageserver-protocol`'s connection (vscode-jsonrpc underneath) over the
 * stdio of a server process, with the protocol's request and notification types. Also used by the CLI's test of
 * `attractor lsp`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  createProtocolConnection,
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';

/** A started server and the client connected to it. */
export interface LspSession {
  readonly connection: ProtocolConnection;
  readonly initialized: InitializeResult;
  /** What the server wrote on stderr so far. */
  readonly stderr: () => string;
  open(uri: string, text: string): void;
  change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): void;
  /**
   * Resolves with the first diagnostics published for `uri` (from now on, or the last one already received) that
   * `accept` takes (default: those of `version`, when given, else any).
   */
  diagnostics(
    uri: string,
    options?: { readonly version?: number; readonly accept?: (params: PublishDiagnosticsParams) => boolean },
  ): Promise<Diagnostic[]>;
  /** Asks the server to shut down and exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

/** Starts `command` (a language server on stdio) and initializes it with `rootUri`. */
export async function startLspSession(options: {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly rootUri?: string;
}): Promise<LspSession> {
  const child: ChildProcess = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published: PublishDiagnosticsParams[] = [];
  const waiters = new Set<() => void>();
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    published.push(params);
    for (const wake of waiters) wake();
  });
  connection.listen();
  const initialized = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: options.rootUri ?? null,
    capabilities: {
      textDocument: {
        publishDiagnostics: { versionSupport: true },
        hover: { contentFormat: ['markdown'] },
        rename: { prepareSupport: true },
      },
    },
    workspaceFolders: null,
  });
  await connection.sendNotification(InitializedNotification.type, {});
  return {
    connection,
    initialized,
    stderr: () => stderr,
    open(uri, text) {
      void connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: 'dot', version: 1, text },
      });
    },
    change(uri, version, changes) {
      void connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: changes,
      });
    },
    diagnostics(uri, wanted = {}) {
      const accept =
        wanted.accept ?? ((params) => wanted.version === undefined || params.version === wanted.version);
      const from = published.findLastIndex((params) => params.uri === uri);
      return new Promise((resolve) => {
        let seen = Math.max(from, 0);
        const check = () => {
          for (; seen < published.length; seen++) {
            const params = published[seen]!;
            if (params.uri === uri && accept(params)) {
              waiters.delete(check);
              resolve(params.diagnostics);
              return;
            }
          }
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
