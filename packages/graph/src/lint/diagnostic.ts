/**
 * The lint diagnostic model (spec §7.1) and the rule interface (spec §7.4).
 */

import type { SourceSpan } from '@attractor/dot';
import type { Graph, GraphNode } from '../graph.js';
import type { AttributeProblem } from '../handler-attributes.js';
import type { HandlerTraits } from '../handler-traits.js';
import type { InputSchemaFile } from './input-schema-file.js';

/** A stage's `output_schema` file as lint read it: its resolved path and the JSON Schema object it holds. */
export interface OutputSchemaFile {
  readonly path: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/** How serious a diagnostic is (spec §7.1). `error` blocks execution. */
export type Severity = 'error' | 'warning' | 'info';

/** One finding of a lint rule (spec §7.1). */
export interface Diagnostic {
  /** Stable snake_case rule id (`start_node`, `attribute_type`, ...). */
  readonly rule: string;
  readonly severity: Severity;
  /** What is wrong, naming the node or edge. */
  readonly message: string;
  /** The node at fault, when there is one. */
  readonly nodeId?: string;
  /** The edge at fault, when there is one. */
  readonly edge?: { readonly from: string; readonly to: string };
  /** How to fix it. */
  readonly fix?: string;
  /**
   * The fix as text edits of the pipeline's file, when it is mechanical (a name another runner uses, a missing
   * unit, a near match): replacing the text of each `span` by `text` fixes the problem. Editors offer them as a quick
   * fix (`attractor lsp`). Absent when the fix needs a decision.
   */
  readonly edits?: readonly DiagnosticEdit[];
  /** The most precise source location: the attribute value when an attribute is at fault. */
  readonly span?: SourceSpan;
}

/** One text replacement of a {@link Diagnostic}'s fix: the text of `span` becomes `text` (DOT, quoted as needed). */
export interface DiagnosticEdit {
  readonly span: SourceSpan;
  readonly text: string;
}

/** What every rule receives besides the graph. */
export interface LintContext {
  /** Dialect aliases are errors instead of warnings (`--strict`). */
  readonly strict: boolean;
  /** Handler types a registry can run; `type_known` warns about others. Default: the built-in types of spec §2.8. */
  readonly knownHandlerTypes: ReadonlySet<string>;
  /** What registered handlers declare about themselves, by handler type (see {@link HandlerLintInfo}). */
  readonly handlers: ReadonlyMap<string, HandlerLintInfo>;
  /** The MCP server names the configuration defines (`mcp_server_known`); undefined when unknown (no check). */
  readonly mcpServers?: ReadonlySet<string>;
  /**
   * What the graph's input schema file declares (`inputs="schemas/in.json"`), with its resolved path, when it could be
   * read (`prepareGraph` with a file reader); undefined otherwise, and `input_variable` then does not check names.
   */
  readonly inputSchema?: InputSchemaFile & { readonly path: string };
  /**
   * The JSON Schema files stages name in `output_schema` (`schemas/review.json`), by node id, with their resolved
   * paths, as far as `prepareGraph` could read them; `out_map_field` checks against them. Undefined without a reader.
   */
  readonly outputSchemaFiles?: ReadonlyMap<string, OutputSchemaFile>;
  /**
   * The capabilities of a node's handler (its registered declaration, else the spec's for its type): rules ask
   * these (`asksHuman`, `fansOut`, ...) rather than compare type strings.
   */
  traitsOf(node: GraphNode): HandlerTraits;
  /**
   * What a node's handler declares (attributes, outcomes, capabilities): its registered declaration, else the
   * built-in one of its type (`SPEC_HANDLER_DECLARATIONS`), else undefined (a custom type nothing declares).
   */
  declarationOf(node: GraphNode): HandlerLintInfo | undefined;
}

/**
 * What a handler declares about itself, for lint (docs/architecture.md "Handler contract"; the engine's
 * `defineHandler` produces it from a zod schema): its node attributes, the outcomes it can return and its
 * capabilities.
 */
export interface HandlerLintInfo extends HandlerTraits {
  /** Node attribute keys the handler reads: `unknown_attribute` does not flag them on its nodes. */
  readonly attributeKeys?: readonly string[];
  /**
   * Checks the node's values of those keys (raw DOT strings) and returns one problem per invalid key, reported by
   * `attribute_type` as an error, e.g. `{ key: 'region', message: 'expected one of eu, us' }` (`attributeChecks`
   * makes it from a zod schema).
   */
  readonly checkAttributes?: (values: Readonly<Record<string, string>>) => readonly AttributeProblem[];
}

/** A lint rule (spec §7.4): a stable name and a pure function from graph to diagnostics. */
export interface LintRule {
  /** Stable snake_case id, used as `Diagnostic.rule`. */
  readonly name: string;
  /** Returns this rule's findings; must not throw on user content. */
  apply(graph: Graph, context: LintContext): readonly Diagnostic[];
}
