/**
 * The language server tests' LSP client (packages/language-server/test/lsp-session.ts: vscode-languageserver-protocol
 * over a child process's stdio), loaded at run time so that this package's type check stays inside its own directory.
 */
import type {
  Diagnostic,
  InitializeResult,
  ProtocolConnection,
  PublishDiagnosticsParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';

/** A started server and the client connected to it (structurally the language server tests' `LspSession`). */
export interface LspSession {
  readonly connection: ProtocolConnection;
  readonly initialized: InitializeResult;
  readonly stderr: () => string;
  open(uri: string, text: string): void;
  change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): void;
  diagnostics(
    uri: string,
    options?: { readonly version?: number; readonly accept?: (params: PublishDiagnosticsParams) => boolean },
  ): Promise<Diagnostic[]>;
  close(): Promise<number | null>;
}

const SESSION = new URL('../../../../packages/language-server/test/lsp-session.ts', import.meta.url).href;

/** Starts `command args` (a language server on stdio) and initializes it. */
export async function startLspSession(options: {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly rootUri?: string;
}): Promise<LspSession> {
  const module = (await import(/* @vite-ignore */ SESSION)) as {
    startLspSession(options: unknown): Promise<LspSession>;
  };
  return module.startLspSession(options);
}
