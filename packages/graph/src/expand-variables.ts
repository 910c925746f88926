/**
 * The one variable expander of Attractor: `$goal` (spec §4.5, §9.2), `$input.<name>` and `$item.<name>` (README
 * "Typed data") in prompts and tool commands, and `$goal` plus `$context.<key>` in the `var.*` values of sub-pipeline nodes (spec §9.4,
 * the allouis dialect).
 */

/**
 * `$goal`; `$context.` followed by a key of letters, digits, `_` and `.` that does not end with a dot; `$input.`
 * followed by an input name; or `$item.` followed by the name a `foreach` binds its item to (`as`).
 */
const VARIABLE =
  /\$goal|\$context\.([A-Za-z0-9_.]*[A-Za-z0-9_])?|\$input\.([A-Za-z_][A-Za-z0-9_]*)|\$item\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** The names of the `$input.<name>` references in `text`, each once, in order. */
export function inputVariableNames(text: string): { readonly name: string; readonly offset: number }[] {
  return variableNames(text, INPUT_VARIABLE);
}

/** The names of the `$item.<name>` references in `text` (a `foreach` item bound by `as`), each once, in order. */
export function itemVariableNames(text: string): { readonly name: string; readonly offset: number }[] {
  return variableNames(text, ITEM_VARIABLE);
}

function variableNames(text: string, pattern: RegExp): { readonly name: string; readonly offset: number }[] {
  const found: { name: string; offset: number }[] = [];
  for (const match of text.matchAll(pattern)) {
    const name = match[1]!;
    if (!found.some((entry) => entry.name === name)) found.push({ name, offset: match.index });
  }
  return found;
}

const INPUT_VARIABLE = /\$input\.([A-Za-z_][A-Za-z0-9_]*)/g;
const ITEM_VARIABLE = /\$item\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** Options of {@link expandVariables}. */
export interface ExpandVariablesOptions {
  /** What `$goal` becomes: the graph's `goal` (default `""`). */
  readonly goal: string;
  /**
   * The run context, for `$context.<key>`. Without it `$context.<key>` is left as written (prompts: spec §4.5
   * makes `$goal` the only template variable there).
   */
  readonly context?: Readonly<Record<string, unknown>>;
  /**
   * The run's inputs, for `$input.<name>` (README "Typed data"). Without it `$input.<name>` is left as written; a
   * name that is not among them (an optional input left out) becomes an empty string.
   */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /**
   * What `$input.<name>` becomes instead of the value, when given: tool commands reference a shell variable
   * (`${ATTRACTOR_INPUT_repo}`) so that an input's text is never read as shell syntax.
   */
  readonly inputReference?: (name: string) => string;
  /**
   * The items bound by the `foreach` nodes the stage runs inside, by `as` name, for `$item.<name>` (README "Typed
   * data"). Without it `$item.<name>` is left as written; a name that is not among them is left as written too.
   */
  readonly items?: Readonly<Record<string, unknown>>;
  /** What `$item.<name>` becomes instead of the value, when given (tool commands: `${ATTRACTOR_ITEM_file}`). */
  readonly itemReference?: (name: string) => string;
}

/** What {@link expandVariables} returns. */
export interface ExpandedText {
  readonly text: string;
  /**
   * The keys of `$context.<key>` references that are not in the context (each once, in order); left as written.
   * `$input.<name>` references are not listed.
   */
  readonly missingKeys: readonly string[];
}

/**
 * Expands template variables in one pass, by plain string replacement (spec §4.5: "not a templating engine"), so a
 * replaced value is never expanded again:
 * - `$goal` becomes `options.goal` (also inside a longer word: `$goals` is the goal followed by `s`, as spec §9.2's
 *   `replace(node.prompt, "$goal", graph.goal)` does);
 * - with `options.context`, `$context.<key>` becomes the value of the context key `<key>`, looked up exactly (keys are
 *   flat and may contain dots: `$context.tool.output`). The key is the longest run of letters, digits, `_` and `.`
 *   after `$context.`, without trailing dots (`$context.base@origin` reads `base`, and `... $context.base.` ends at
 *   `base`). A string value is inserted as is, any other JSON value as JSON (`3`, `true`, `["a"]`). A key that is
 *   not in the context is left as written and listed in `missingKeys`;
 * - with `options.inputs`, `$input.<name>` becomes the input `<name>` (a string as is, any other JSON value as JSON),
 *   or an empty string when the run was not given that (optional) input;
 * - with `options.items`, `$item.<name>` becomes the item a `foreach` bound to `<name>` (as JSON unless a string).
 * Every other `$` (shell variables such as `$HOME`, `$(...)`) passes through unchanged.
 *
 * @example
 * expandVariables('jj diff --from $context.base@origin', { goal: '', context: { base: 'main' } }).text;
 * // 'jj diff --from main@origin'
 */
export function expandVariables(text: string, options: ExpandVariablesOptions): ExpandedText {
  const missing = new Set<string>();
  const context = options.context;
  const inputs = options.inputs;
  const items = options.items;
  const expanded = text.replace(VARIABLE, (match, key?: string, input?: string, item?: string) => {
    if (match === '$goal') return options.goal;
    if (item !== undefined) {
      if (items === undefined || !Object.hasOwn(items, item)) return match;
      return options.itemReference === undefined ? jsonText(items[item]) : options.itemReference(item);
    }
    if (input !== undefined) {
      if (options.inputReference !== undefined) return options.inputReference(input);
      if (inputs === undefined) return match;
      return Object.hasOwn(inputs, input) ? jsonText(inputs[input]) : '';
    }
    if (context === undefined || key === undefined) return match;
    if (!Object.hasOwn(context, key)) {
      missing.add(key);
      return match;
    }
    return jsonText(context[key]);
  });
  return { text: expanded, missingKeys: [...missing] };
}

function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
