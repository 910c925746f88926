/**
 * The validation API of spec §7.3: run the built-in and custom lint rules over a graph.
 */
import { ValidationError } from '../errors/validation-error.js';
import { BUILT_IN_HANDLER_TYPE_NAMES, type Graph } from '../graph.js';
import { handlerTraits } from '../handler-traits.js';
import { declarationOfType } from '../spec-handler-declarations.js';
import { forgetAttributeVisits } from './attribute-walk.js';
import { BUILT_IN_RULES } from './built-in-rules.js';
import type { Diagnostic, HandlerLintInfo, LintContext, LintRule, OutputSchemaFile } from './diagnostic.js';
import type { InputSchemaFile } from './input-schema-file.js';
import { phantomNodes } from './phantom-nodes.js';
import { plainSpan } from './source-location.js';

/** The handler types of spec §2.8 and `subgraph` (§9.4): the default `knownHandlerTypes` of `validate`. */
export const BUILT_IN_HANDLER_TYPES: readonly string[] = BUILT_IN_HANDLER_TYPE_NAMES;

/** Options of `validate` and `validateOrThrow`. */
export interface ValidateOptions {
  /** Custom rules, run after the built-in ones in the given order (spec §7.4). Default: none. */
  readonly rules?: readonly LintRule[];
  /** Report dialect aliases as errors (`--strict`). Default: false. */
  readonly strict?: boolean;
  /**
   * Handler types a registry can run; `type_known` warns about any other explicit `type`.
   * Default: `BUILT_IN_HANDLER_TYPES`. Pass the registry's types when custom handlers are registered.
   */
  readonly knownHandlerTypes?: Iterable<string>;
  /**
   * What registered handlers declare (attributes, outcomes, capabilities), by handler type: read by
   * `unknown_attribute`, `attribute_type`, `outcome_coverage` and every rule that depends on what a node does
   * (human gates, parallel blocks, LLM prompts). The engine's `HandlerRegistry.lintInfo()` builds it. Default: none,
   * so the spec's built-in types keep their meaning and attributes (`SPEC_HANDLER_DECLARATIONS`).
   */
  readonly handlers?: ReadonlyMap<string, HandlerLintInfo>;
  /**
   * The MCP server names the configuration defines (README "MCP"): `mcp_server_known` reports every other name in a
   * node's `mcp_servers`. Default: none given, so `mcp_servers` is not checked.
   */
  readonly mcpServers?: Iterable<string>;
  /**
   * What the graph's input schema file declares, when `inputs` names one and it was read (`prepareGraph` reads it
   * through its file reader): `input_variable` checks `$input.<name>` against it. Default: none (not checked).
   */
  readonly inputSchema?: InputSchemaFile & { readonly path: string };
  /** The stages' `output_schema` files, read (`prepareGraph` reads them): `out_map_field` checks against them. */
  readonly outputSchemaFiles?: ReadonlyMap<string, OutputSchemaFile>;
}

/** Graph-wide rules whose findings a mistyped edge end causes; dropped while `edge_target_exists` reports one. */
const KNOCK_ON_RULES: ReadonlySet<string> = new Set(['reachability', 'exit_unreachable', 'dead_edge']);

/**
 * Lints a graph (spec §7.3): every rule of `BUILT_IN_RULES`, then `options.rules`. Diagnostics come back
 * ordered by source position (those without a position first), ties in rule order. A rule that throws
 * becomes an error diagnostic of rule `lint_rule_failed` instead of aborting validation. For a node that
 * exists only through a mistyped edge end (`edge_target_exists` reports it with a did-you-mean), the other
 * built-in rules' diagnostics about that node (`prompt_on_llm_nodes`, `dead_end`, ...) are dropped, and so
 * are the graph-wide `reachability` and `exit_unreachable` findings, which such a typo causes (a broken
 * `a -> exti` leaves the exit unreachable from everywhere): the user sees the one error first, and the
 * next validation after the fix reports what remains. Custom rules' diagnostics are kept. A finding about the whole
 * graph without a place of its own (no start node, no exit node) points at the graph id on the `digraph` line. Every
 * diagnostic's
 * `span` is a plain object (a copy of the graph's span, whose positions the parser works out on read).
 *
 * @example
 * ```ts
 * const diagnostics = validate(graph, { knownHandlerTypes: [...BUILT_IN_HANDLER_TYPES, 'deploy'] });
 * const blocked = diagnostics.some((diagnostic) => diagnostic.severity === 'error');
 * ```
 */
export function validate(graph: Graph, options: ValidateOptions = {}): Diagnostic[] {
  const handlers = options.handlers ?? new Map<string, HandlerLintInfo>();
  // Several rules ask for every node's declaration, some once per attribute: one lookup per handler type.
  const declarations = new Map<string, HandlerLintInfo | undefined>();
  const context: LintContext = {
    strict: options.strict ?? false,
    knownHandlerTypes: new Set(options.knownHandlerTypes ?? BUILT_IN_HANDLER_TYPES),
    handlers,
    ...(options.mcpServers === undefined ? {} : { mcpServers: new Set(options.mcpServers) }),
    ...(options.inputSchema === undefined ? {} : { inputSchema: options.inputSchema }),
    ...(options.outputSchemaFiles === undefined ? {} : { outputSchemaFiles: options.outputSchemaFiles }),
    traitsOf: (node) => handlerTraits(graph, node, handlers),
    declarationOf: (node) => {
      const type = graph.handlerType(node);
      let declaration = declarations.get(type);
      if (declaration === undefined && !declarations.has(type)) {
        declaration = declarationOfType(type, handlers);
        declarations.set(type, declaration);
      }
      return declaration;
    },
  };
  const diagnostics: Diagnostic[] = [];
  const phantoms = phantomNodes(graph);
  const builtIn = new Set<LintRule>(BUILT_IN_RULES);
  const keep = (diagnostic: Diagnostic) =>
    diagnostic.rule === 'edge_target_exists' ||
    phantoms.size === 0 ||
    (!KNOCK_ON_RULES.has(diagnostic.rule) &&
      (diagnostic.nodeId === undefined || !phantoms.has(diagnostic.nodeId)));
  for (const rule of [...BUILT_IN_RULES, ...(options.rules ?? [])]) {
    try {
      const found = rule.apply(graph, context);
      for (const diagnostic of found) {
        if (builtIn.has(rule) && !keep(diagnostic)) continue;
        // A finding about the whole graph (no start node, no exit node) points at the `digraph` line.
        const span =
          diagnostic.span ??
          (diagnostic.nodeId === undefined && diagnostic.edge === undefined ? graph.idSpan : undefined);
        diagnostics.push(span === undefined ? diagnostic : { ...diagnostic, span: plainSpan(span) });
      }
    } catch (error) {
      diagnostics.push({
        rule: 'lint_rule_failed',
        severity: 'error',
        message: `Lint rule "${rule.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
        fix: `Fix or remove the lint rule "${rule.name}".`,
      });
    }
  }
  forgetAttributeVisits(graph);
  return sortDiagnostics(diagnostics);
}

/**
 * Like `validate`, but throws when any diagnostic is an error (spec §7.3 `validate_or_raise`).
 *
 * @returns all diagnostics (warnings and infos) when there is no error.
 * @throws {ValidationError} code `VALIDATION_FAILED`, with every diagnostic in `.diagnostics`.
 */
export function validateOrThrow(graph: Graph, options: ValidateOptions = {}): Diagnostic[] {
  const diagnostics = validate(graph, options);
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error'))
    throw new ValidationError(diagnostics);
  return diagnostics;
}

/** Orders diagnostics by source offset (those without a span first); stable for equal offsets. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics
    .map((diagnostic, index) => ({ diagnostic, index }))
    .sort(
      (left, right) =>
        (left.diagnostic.span?.start.offset ?? -1) - (right.diagnostic.span?.start.offset ?? -1) ||
        left.index - right.index,
    )
    .map(({ diagnostic }) => diagnostic);
}
