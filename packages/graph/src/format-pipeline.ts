/**
 * The canonical layout of a pipeline (`attractor fmt`, the language server's formatting): `formatDot` of
 * `@attractor/dot` with Attractor's attribute order and quoting.
 */
import { type DotAttributeScope, formatDot } from '@attractor/dot';
import { ATTRIBUTE_DEFINITIONS, DIALECT_ALIASES, GRAPHVIZ_ATTRIBUTES } from './attribute-schema.js';

/** Options of {@link formatPipeline}. */
export interface FormatPipelineOptions {
  /** File name for the syntax error of a file that does not parse. Default: none. */
  readonly filename?: string;
  /** Columns an attribute list may fill on one line. Default: 100. */
  readonly lineWidth?: number;
}

/**
 * What a node, edge or graph says first: what it is (`shape`, `type`), its name, its class, its routing; the long
 * texts (prompt, command, stylesheet) last. The other keys of the schema come between them in the schema's order.
 */
const FIRST = ['shape', 'type', 'label', 'goal', 'class', 'condition', 'weight'];
const LAST = ['prompt', 'tool_command', 'model_stylesheet'];

const RANKS: ReadonlyMap<string, number> = (() => {
  const order = [
    ...FIRST,
    ...Object.keys(ATTRIBUTE_DEFINITIONS).filter((key) => !FIRST.includes(key) && !LAST.includes(key)),
    ...LAST,
  ];
  const ranks = new Map(order.map((key, index) => [key, index]));
  // An alias sorts with its canonical key, so that of the two the one written last still wins.
  for (const [alias, key] of Object.entries(DIALECT_ALIASES)) ranks.set(alias, ranks.get(key)!);
  return ranks;
})();
/** Keys the schema does not know (a plug-in's, `var.*`) come after its keys, Graphviz's presentation keys last. */
const UNKNOWN_RANK = 1000;
const GRAPHVIZ_RANK = 1001;

/** Graphviz attributes whose values are text: quoted like labels. */
const GRAPHVIZ_TEXT = new Set(['xlabel', 'tooltip', 'comment', 'headlabel', 'taillabel', 'URL', 'href']);

/** The rank of an attribute in its list (see {@link formatPipeline}). */
function attributeRank(key: string): number {
  return RANKS.get(key) ?? (GRAPHVIZ_ATTRIBUTES.has(key) ? GRAPHVIZ_RANK : UNKNOWN_RANK);
}

/** Whether a value of `key` is written unquoted when it can be: numbers, booleans, shapes and enumerations. */
function bareValue(key: string, _scope: DotAttributeScope): boolean {
  const canonical = DIALECT_ALIASES[key] ?? key;
  if (canonical === 'shape') return true;
  const definition = (ATTRIBUTE_DEFINITIONS as Record<string, { readonly expected: string }>)[canonical];
  if (definition !== undefined) return definition.expected !== 'a string';
  return GRAPHVIZ_ATTRIBUTES.has(key) && !GRAPHVIZ_TEXT.has(key);
}

/**
 * Formats a pipeline in the canonical layout (spec §2.2 syntax): `formatDot`'s layout (two-space indentation, one
 * statement per line, comments kept where they were, string contents unchanged), with attributes ordered `shape`,
 * `type`, `label`, `goal`, `class`, `condition`, `weight`, then the other keys of spec Appendix A and the handlers
 * (in the attribute schema's order), then `prompt`, `tool_command` and `model_stylesheet`, then keys the schema does
 * not know and Graphviz presentation keys, each group in the order written. Values of numeric, boolean and enumerated
 * keys and of `shape` are unquoted when they are an identifier or a number; text values (labels, prompts, commands,
 * conditions, durations such as `"900s"`, unknown keys) are quoted. Dotted keys are quoted (`"human.default_choice"`),
 * as Graphviz needs. The result parses to the same graph, and formatting it again changes nothing.
 *
 * @throws {DotSyntaxError} when the text does not parse.
 */
export function formatPipeline(source: string, options: FormatPipelineOptions = {}): string {
  return formatDot(source, {
    attributeRank,
    bareValue,
    ...(options.filename === undefined ? {} : { filename: options.filename }),
    ...(options.lineWidth === undefined ? {} : { lineWidth: options.lineWidth }),
  });
}
