import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  type Diagnostic,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { epochNow, recordPhase } from './analysis-phase.js';
import { AnalysisService } from './analysis-service.js';
import { quickFixes } from './code-actions.js';
import { completionsAt } from './completion.js';
import { documentSymbols } from './document-symbols.js';
import { createMessageWriter } from './encoded-diagnostics.js';
import { hoverAt } from './hover.js';
import { definitionAt, documentLinks, prepareRenameAt, referencesAt, renameAt } from './navigation.js';
import type { PipelineDocument } from './pipeline-document.js';
import { indexPipeline, type PipelineIndex } from './pipeline-index.js';
import type { ProjectFacts } from './project-support.js';

/** The method of the request that renders a pipeline as SVG (the editor's preview): `{ uri }` → `{ svg }`. */
export const RENDER_REQUEST = 'attractor/render';

/** Parameters of {@link RENDER_REQUEST}. */
export interface RenderParams {
  /** An open document's URI. */
  readonly uri: string;
}

/** Result of {@link RENDER_REQUEST}. */
export interface RenderResult {
  readonly svg: string;
}

/** Options of {@link startLanguageServer}. */
export interface LanguageServerOptions {
  /** Where the client's messages come from (the process's stdin for `attractor lsp`). */
  readonly input: NodeJS.ReadableStream;
  /** Where the server's messages go (stdout). */
  readonly output: NodeJS.WritableStream;
  /**
   * URL of a module that says what a project adds (plug-in handlers of its config, models): see `ProjectModule`. The
   * analysis worker imports it. Default: none (pipelines are linted with the built-in handlers).
   */
  readonly projectModule?: string;
  /**
   * Renders a pipeline's text as SVG, for {@link RENDER_REQUEST}; rejects with a message saying why it could not.
   * Default: none (the request fails saying so).
   */
  readonly render?: (pipeline: { readonly source: string; readonly filename?: string }) => Promise<string>;
  /** Milliseconds after the last change before a document is linted again. Default: 150. */
  readonly debounceMs?: number;
}

/** A running server. */
export interface LanguageServer {
  /** Settles when the client has asked the server to shut down and it has stopped its worker. */
  readonly shutDown: Promise<void>;
}

const NO_PROJECT: ProjectFacts = { handlerTypes: [], handlers: [], models: [] };

/** What the server keeps for each open document. */
interface DocumentState {
  index?: { readonly version: number; readonly index: PipelineIndex };
  project: ProjectFacts;
  /** Settles when the document's first analysis has (its project's plug-ins and models are known then). */
  readonly analyzed: Promise<void>;
  markAnalyzed(): void;
}

/**
 * Starts a Language Server Protocol server for Attractor pipelines (DOT files) on a pair of streams:
 *
 * - diagnostics of the parser and every lint rule (spec §7, with the project's plug-in handlers), published as the
 *   user types (after `debounceMs`), at the parser's and the rules' spans; linting runs in a worker thread, so the
 *   other requests are answered while a large file is linted;
 * - quick fixes: the edits of a diagnostic whose fix is mechanical;
 * - hover (attributes: meaning, value type, default, spec section; node ids; `$goal`), completion (keys valid for the
 *   node's handler, values, node ids, condition keys and outcomes), go to definition, find references, rename of a
 *   node id, document symbols, document links to the files a pipeline names, and formatting (`formatPipeline`, as
 *   `attractor fmt`);
 * - {@link RENDER_REQUEST}: the pipeline as SVG, when `render` is given.
 *
 * Positions are UTF-16, as LSP's default.
 */
export function startLanguageServer(options: LanguageServerOptions): LanguageServer {
  // The input as a stream: the library then ends the process when the client closes it. The writer writes the
  // worker's encoded diagnostics as they are.
  const connection = createConnection(
    options.input,
    createMessageWriter(options.output) as unknown as NodeJS.WritableStream,
  );
  const documents = new TextDocuments(TextDocument);
  const states = new Map<string, DocumentState>();
  const service = new AnalysisService({
    workerUrl: new URL('./analysis-worker.js', import.meta.url),
    ...(options.projectModule === undefined ? {} : { projectModule: options.projectModule }),
  });
  const debounceMs = options.debounceMs ?? 150;
  let resolveShutDown: () => void = () => {};
  const shutDown = new Promise<void>((resolve) => {
    resolveShutDown = resolve;
  });

  const stateOf = (uri: string): DocumentState => {
    let state = states.get(uri);
    if (state === undefined) {
      let markAnalyzed = () => {};
      const analyzed = new Promise<void>((resolve) => {
        markAnalyzed = resolve;
      });
      state = { project: NO_PROJECT, analyzed, markAnalyzed };
      states.set(uri, state);
    }
    return state;
  };

  const pipelineOf = (uri: string): PipelineDocument | undefined => {
    const document = documents.get(uri);
    if (document === undefined) return undefined;
    const state = stateOf(uri);
    if (state.index?.version !== document.version) {
      state.index = { version: document.version, index: indexPipeline(document.getText()) };
    }
    const filename = filenameOf(uri);
    return {
      document,
      index: state.index.index,
      project: state.project,
      ...(filename === undefined ? {} : { filename }),
    };
  };

  /**
   * Lints the document's current text after `delayMs` (the worker waits, so a busy main thread does not hold it up)
   * and publishes its diagnostics, unless a newer text comes first: that one is linted instead.
   */
  const analyze = async (uri: string, delayMs: number): Promise<void> => {
    const state = stateOf(uri);
    const document = documents.get(uri);
    if (document === undefined) return;
    const { version } = document;
    const filename = filenameOf(uri);
    try {
      const analysis = await service.analyze({
        document: uri,
        delayMs,
        text: document.getText(),
        ...(filename === undefined ? {} : { filename, directory: dirname(filename) }),
      });
      // Superseded by a newer text, which is linted instead (and marks the document analysed).
      if (analysis === undefined) return;
      for (const phase of analysis.phases) recordPhase(phase, { uri, version });
      state.project = analysis.project;
      // Diagnostics of an older text would point at the wrong places: the newer text is linted next.
      if (documents.get(uri)?.version === version) {
        const publishing = epochNow();
        // The worker's JSON, written as it is (`createMessageWriter`).
        await connection.sendDiagnostics({
          uri,
          version,
          diagnostics: analysis.diagnostics as unknown as Diagnostic[],
        });
        recordPhase({ name: 'publish', start: publishing, end: epochNow() }, { uri, version });
      }
      state.markAnalyzed();
    } catch (error) {
      connection.console.error(
        `attractor: linting ${uri} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      state.markAnalyzed();
    }
  };

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['[', ',', '=', '"', ' ', '>', '.'] },
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      documentSymbolProvider: true,
      documentLinkProvider: { resolveProvider: false },
      documentFormattingProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    serverInfo: { name: 'attractor-language-server' },
  }));

  // `TextDocuments` fires both events for an open: the text just opened is linted at once, not after the delay.
  let opening: string | undefined;
  documents.onDidOpen((event) => {
    opening = event.document.uri;
    void analyze(event.document.uri, 0);
  });
  documents.onDidChangeContent((event) => {
    if (opening === event.document.uri) opening = undefined;
    else void analyze(event.document.uri, debounceMs);
  });
  documents.onDidClose((event) => {
    const state = states.get(event.document.uri);
    service.cancel(event.document.uri);
    state?.markAnalyzed();
    states.delete(event.document.uri);
    void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  });
  // A config, a sub-pipeline or a prompt file changed on disk: lint the open pipelines again.
  connection.onDidChangeWatchedFiles(() => {
    for (const document of documents.all()) void analyze(document.uri, debounceMs);
  });

  const at = <TResult>(
    params: { textDocument: { uri: string }; position: { line: number; character: number } },
    answer: (pipeline: PipelineDocument, offset: number) => TResult,
    otherwise: TResult,
  ): TResult => {
    const pipeline = pipelineOf(params.textDocument.uri);
    return pipeline === undefined ? otherwise : answer(pipeline, pipeline.document.offsetAt(params.position));
  };

  connection.onHover((params) => at(params, hoverAt, null));
  // Completion offers the plug-ins' keys and the models: it waits for the project of a document just opened.
  connection.onCompletion(async (params) => {
    await states.get(params.textDocument.uri)?.analyzed;
    return at(params, completionsAt, []);
  });
  connection.onDefinition((params) =>
    at(params, (pipeline, offset) => definitionAt(pipeline, offset, params.textDocument.uri), []),
  );
  connection.onReferences((params) =>
    at(
      params,
      (pipeline, offset) =>
        referencesAt(pipeline, offset, params.textDocument.uri, params.context.includeDeclaration),
      [],
    ),
  );
  connection.onPrepareRename((params) => at(params, prepareRenameAt, null));
  connection.onRenameRequest((params) =>
    at(
      params,
      (pipeline, offset) => renameAt(pipeline, offset, params.newName, params.textDocument.uri),
      null,
    ),
  );
  connection.onDocumentSymbol((params) => {
    const pipeline = pipelineOf(params.textDocument.uri);
    return pipeline === undefined ? [] : documentSymbols(pipeline);
  });
  connection.onDocumentLinks((params) => {
    const pipeline = pipelineOf(params.textDocument.uri);
    return pipeline === undefined ? [] : documentLinks(pipeline);
  });
  connection.onCodeAction((params) =>
    quickFixes(params.textDocument.uri, params.context.diagnostics as Diagnostic[]),
  );
  connection.onDocumentFormatting(async (params) => {
    const document = documents.get(params.textDocument.uri);
    if (document === undefined) return [];
    const text = document.getText();
    const filename = filenameOf(params.textDocument.uri);
    const formatted = await service.format({ text, ...(filename === undefined ? {} : { filename }) });
    if (formatted === undefined || formatted === text) return [];
    return [
      {
        range: { start: { line: 0, character: 0 }, end: document.positionAt(text.length) },
        newText: formatted,
      },
    ];
  });
  connection.onRequest(RENDER_REQUEST, async (params: RenderParams): Promise<RenderResult> => {
    const document = documents.get(params.uri);
    if (document === undefined) throw new ResponseError(-32602, `${params.uri} is not open.`);
    if (options.render === undefined) {
      throw new ResponseError(
        -32601,
        'This language server cannot render pipelines; start it with `attractor lsp`.',
      );
    }
    const filename = filenameOf(params.uri);
    try {
      return {
        svg: await options.render({
          source: document.getText(),
          ...(filename === undefined ? {} : { filename }),
        }),
      };
    } catch (error) {
      throw new ResponseError(-32603, error instanceof Error ? error.message : String(error));
    }
  });
  connection.onShutdown(async () => {
    await service.dispose();
    resolveShutDown();
  });

  documents.listen(connection);
  connection.listen();
  return { shutDown };
}

/** The path of a `file:` URI; `undefined` for another scheme (an unsaved editor). */
function filenameOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
