/**
 * The whole front end of spec §9.1 `prepare_pipeline`: parse → build → transform → validate.
 */
import { type DotParseCache, DotSyntaxError, parseDotIncrementally } from '@attractor/dot';
import { buildGraph } from './build-graph.js';
import type { Graph } from './graph.js';
import type { Diagnostic, HandlerLintInfo, LintRule, OutputSchemaFile } from './lint/diagnostic.js';
import { checkGraphRefs, type FileFinding, type GraphFileReader } from './lint/graph-refs.js';
import { type InputSchemaFile, readInputSchemaFile } from './lint/input-schema-file.js';
import { readPromptFiles } from './lint/prompt-files.js';
import { readJsonSchemaFile } from './lint/read-json-schema-file.js';
import { resolveGraphRef } from './lint/resolve-graph-ref.js';
import { plainSpan } from './lint/source-location.js';
import { sortDiagnostics, validate } from './lint/validate.js';
import { parseOutputSchemaDeclaration } from './output-schema-declaration.js';
import { applyStylesheetTransform } from './transforms/apply-stylesheet.js';
import { expandGoalVariableTransform } from './transforms/expand-goal-variable.js';
import type { Transform } from './transforms/transform.js';

/** The built-in transforms, in the order `prepareGraph` runs them (spec §9.2). */
export const BUILT_IN_TRANSFORMS: readonly Transform[] = [
  expandGoalVariableTransform,
  applyStylesheetTransform,
];

/** Options of `prepareGraph`. */
export interface PrepareGraphOptions {
  /** File name for spans and messages. */
  readonly filename?: string;
  /** Custom transforms, run after the built-in ones in the given order (spec §9.3). Default: none. */
  readonly transforms?: readonly Transform[];
  /** Custom lint rules, run after the built-in ones (spec §7.4). Default: none. */
  readonly rules?: readonly LintRule[];
  /** Dialect aliases become errors. Default: false. */
  readonly strict?: boolean;
  /** Handler types the registry runs (see `validate`). Default: the built-in types. */
  readonly knownHandlerTypes?: Iterable<string>;
  /** What registered handlers declare, by type (`HandlerRegistry.lintInfo()` of the engine); see `validate`. */
  readonly handlers?: ReadonlyMap<string, HandlerLintInfo>;
  /** The MCP server names the configuration defines (see `validate`). Default: none given, `mcp_servers` unchecked. */
  readonly mcpServers?: Iterable<string>;
  /**
   * Reads the DOT files that `subgraph` nodes name in `graph_ref` (spec §9.4) and manager loops in
   * `stack.child_dotfile` (spec §4.11), resolved against the directory of `filename`: return the text, or
   * `undefined` when the file does not exist. With it, each referenced file is prepared too (same options,
   * recursively) and lints `subgraph_ref` / `manager_child_dotfile` report a missing or unreadable file, a child
   * pipeline with errors and a cycle of references as errors at the attribute's value. Without it those checks
   * are skipped (the handlers still refuse such a file when the node runs). It also reads prompt files
   * (`prompt="@prompts/plan.md"`, relative to the same directory): the node's prompt is the file's text, and lint
   * `prompt_file` warns about a missing one (and, without a reader, that prompt files are not read). Default: none.
   */
  readonly readGraphFile?: GraphFileReader;
  /**
   * Chunks of DOT text matched by earlier calls (`createDotParseCache` of `@attractor/dot`), for preparing successive
   * versions of a file, as an editor does after each change: only the statements that changed are matched again.
   * Child pipelines read through `readGraphFile` use it too. Same result as without. Default: none.
   */
  readonly parseCache?: DotParseCache;
}

/** What `prepareGraph` returns. `graph` is absent only when the DOT did not parse. */
export interface PreparedGraph {
  readonly graph?: Graph;
  /** Every finding, ordered by source position; any `error` means the pipeline must not run (spec §7.1). */
  readonly diagnostics: Diagnostic[];
}

/**
 * Parses DOT source, builds the graph, applies the built-in transforms (`$goal` expansion, then the
 * model stylesheet) and the custom ones in order, and validates the result (spec §9.1).
 *
 * Never throws on user content: a DOT syntax error becomes one error diagnostic of rule `dot_syntax`
 * (with the parser's location and hint) and no graph, so callers print every problem the same way.
 * With `readGraphFile`, the files named by `graph_ref` and `stack.child_dotfile` are checked as well (lints
 * `subgraph_ref`, `manager_child_dotfile`).
 *
 * @example
 * ```ts
 * const { graph, diagnostics } = prepareGraph(source, { filename: 'pipeline.dot' });
 * for (const diagnostic of diagnostics) console.error(formatDiagnostic(diagnostic, source));
 * if (!graph || diagnostics.some((d) => d.severity === 'error')) process.exitCode = 1;
 * ```
 */
export function prepareGraph(source: string, options: PrepareGraphOptions = {}): PreparedGraph {
  const chain =
    options.filename === undefined
      ? []
      : [resolveGraphRef({ ref: options.filename, parentFilename: undefined })];
  const { graph, diagnostics } = prepareWithRefs(source, options, chain, new Map());
  return graph === undefined ? { diagnostics } : { graph, diagnostics };
}

/** A prepared graph, with the input schema file it read (for the checks of a parent's sub-pipeline node). */
interface PreparedWithRefs extends PreparedGraph {
  readonly inputSchema?: InputSchemaFile & { readonly path: string };
}

function prepareWithRefs(
  source: string,
  options: PrepareGraphOptions,
  chain: readonly string[],
  cache: Map<string, FileFinding>,
): PreparedWithRefs {
  const filename = options.filename;
  let graph: Graph;
  try {
    // Each statement becomes part of the graph as soon as it is parsed: the AST of the whole file never exists.
    const statements = parseDotIncrementally(source, {
      ...(filename === undefined ? {} : { filename }),
      ...(options.parseCache === undefined ? {} : { cache: options.parseCache }),
    });
    graph = buildGraph(statements, { source, ...(filename === undefined ? {} : { filename }) });
  } catch (error) {
    if (!DotSyntaxError.isInstance(error)) throw error;
    const { start, end } = error.span;
    return {
      diagnostics: [
        {
          rule: 'dot_syntax',
          severity: 'error',
          message: error.shortMessage,
          ...(error.hint ? { fix: error.hint } : {}),
          span: filename === undefined ? { start, end } : { start, end, filename },
        },
      ],
    };
  }
  // Prompt files first: `$goal` in a prompt file is expanded like `$goal` in the DOT file.
  const prompts = readPromptFiles(graph, options.readGraphFile);
  graph = prompts.graph;
  for (const transform of [...BUILT_IN_TRANSFORMS, ...(options.transforms ?? [])]) {
    graph = transform.apply(graph);
  }
  const inputSchema = readGraphInputSchema(graph, options.readGraphFile);
  const outputSchemas = readOutputSchemaFiles(graph, options.readGraphFile);
  const diagnostics = validate(graph, {
    ...(inputSchema?.schema === undefined ? {} : { inputSchema: inputSchema.schema }),
    ...(outputSchemas === undefined ? {} : { outputSchemaFiles: outputSchemas.files }),
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
    ...(options.knownHandlerTypes === undefined ? {} : { knownHandlerTypes: options.knownHandlerTypes }),
    ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
  });
  diagnostics.push(...prompts.diagnostics);
  if (inputSchema?.problem !== undefined) diagnostics.push(inputSchema.problem);
  if (outputSchemas !== undefined) diagnostics.push(...outputSchemas.problems);
  const read = options.readGraphFile;
  if (read !== undefined) {
    diagnostics.push(
      ...checkGraphRefs(graph, {
        read,
        chain,
        cache,
        prepare: (childSource, childFilename, childChain) =>
          prepareWithRefs(childSource, { ...options, filename: childFilename }, childChain, cache),
      }),
    );
  }
  return {
    graph,
    diagnostics: sortDiagnostics(diagnostics),
    ...(inputSchema?.schema === undefined ? {} : { inputSchema: inputSchema.schema }),
  };
}

/**
 * The graph's input schema file (`inputs="schemas/in.json"`, relative to the DOT file, as the run reads it) read
 * through `read`: what it declares, or an `inputs_declaration` error at `inputs` saying why the run would fail
 * (missing, unreadable, not a JSON object). Undefined without a reader or a schema file.
 */
function readGraphInputSchema(
  graph: Graph,
  read: GraphFileReader | undefined,
):
  | { readonly schema?: InputSchemaFile & { readonly path: string }; readonly problem?: Diagnostic }
  | undefined {
  const declaration = graph.settings.inputs;
  if (read === undefined || declaration?.kind !== 'file') return undefined;
  const path = resolveGraphRef({ ref: declaration.path, parentFilename: graph.filename });
  const schema = readInputSchemaFile(path, read);
  if (typeof schema !== 'string') return { schema: { ...schema, path } };
  const span = graph.attributes.inputs?.valueSpan;
  return {
    problem: {
      rule: 'inputs_declaration',
      severity: 'error',
      message: `The input schema file of graph "${graph.id}", ${path} (inputs="${declaration.path}"), ${schema}, so a run cannot start.`,
      fix: `Fix the path in inputs (relative to the DOT file's directory) or create ${path} holding a JSON Schema object, or declare the inputs inline: inputs="name: type, ...".`,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
    },
  };
}

/**
 * The JSON Schema files the stages name in `output_schema` (relative to the DOT file, as the stage reads them), read
 * through `read`, by node id; each that cannot be used (missing, unreadable, not a JSON object) is an `output_schema`
 * error at the attribute (the stage would fail when it runs). Undefined without a reader.
 */
function readOutputSchemaFiles(
  graph: Graph,
  read: GraphFileReader | undefined,
): { readonly files: ReadonlyMap<string, OutputSchemaFile>; readonly problems: Diagnostic[] } | undefined {
  if (read === undefined) return undefined;
  const files = new Map<string, OutputSchemaFile>();
  const problems: Diagnostic[] = [];
  for (const node of graph.nodes.values()) {
    const attribute = node.attributes.output_schema;
    if (attribute === undefined || attribute.value.trim() === '') continue;
    const parsed = parseOutputSchemaDeclaration(attribute.value);
    if (!parsed.ok || parsed.declaration.kind !== 'file') continue;
    const path = resolveGraphRef({ ref: parsed.declaration.path, parentFilename: graph.filename });
    const schema = readJsonSchemaFile(path, read);
    if (typeof schema !== 'string') {
      files.set(node.id, { path, schema });
      continue;
    }
    const span = attribute.valueSpan;
    problems.push({
      rule: 'output_schema',
      severity: 'error',
      message: `The output_schema file of "${node.id}", ${path} (output_schema="${parsed.declaration.path}"), ${schema}, so the stage fails when it runs.`,
      nodeId: node.id,
      fix: `Fix the path (relative to the DOT file's directory) or create ${path} holding a JSON Schema object, or write the schema inline: output_schema="verdict: string, issues?: string[]".`,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
    });
  }
  return { files, problems };
}
