/**
 * A region of the stylesheet text: `offset` is the index of its first character (0-based, in UTF-16
 * code units) and `length` its size. Offsets are inside the stylesheet text itself, not the DOT file.
 */
export interface StylesheetSpan {
  readonly offset: number;
  readonly length: number;
}

/** The kinds of selector of spec §8.3. */
export type StylesheetSelectorKind = 'universal' | 'shape' | 'class' | 'id';

/**
 * A rule's selector, spec §8.3. `value` is the name without its sigil: `''` for `*`, the shape name
 * (`box`), the class name (`code` for `.code`) or the node id (`review` for `#review`).
 */
export interface StylesheetSelector {
  readonly kind: StylesheetSelectorKind;
  readonly value: string;
  readonly span: StylesheetSpan;
}

/** Selector specificity, spec §8.3: universal 0, shape 1, class 2, id 3. */
export type StylesheetSpecificity = 0 | 1 | 2 | 3;

/**
 * One applied `property: value` declaration. `value` has quotes removed and escapes resolved;
 * `valueSpan` covers the value as written, quotes included. `span` runs from the property to the end
 * of the value.
 */
export interface StylesheetDeclaration {
  readonly property: string;
  readonly value: string;
  readonly span: StylesheetSpan;
  readonly propertySpan: StylesheetSpan;
  readonly valueSpan: StylesheetSpan;
}

/**
 * One rule of the stylesheet, spec §8.2. `order` is its 0-based position among the rules (later
 * rules win at equal specificity). `declarations` holds only recognised properties with valid values,
 * in source order; the rest are reported in `ParsedStylesheet.diagnostics` and never applied.
 */
export interface StylesheetRule {
  readonly selector: StylesheetSelector;
  readonly specificity: StylesheetSpecificity;
  readonly order: number;
  readonly declarations: readonly StylesheetDeclaration[];
  readonly span: StylesheetSpan;
}

/** Stable codes of {@link StylesheetDiagnostic}. */
export type StylesheetDiagnosticCode =
  | 'unknown_property'
  | 'invalid_value'
  | 'unknown_shape'
  | 'property_alias'
  | 'model_glob'
  | 'selector_glob';

/**
 * A problem in a stylesheet that parses, for lint to report.
 *
 * - `unknown_property` (warning): a property other than `llm_model`, `llm_provider` and
 *   `reasoning_effort`; the fix suggests the closest one (`model` -> `llm_model`).
 * - `invalid_value` (error): an empty value, or a `reasoning_effort` other than `low`, `medium`, `high`.
 * - `unknown_shape` (warning): a shape selector that is not a Graphviz shape, so it matches no node.
 * - `property_alias` (warning): Fabro's `model:` / `provider:`, applied as `llm_model` / `llm_provider`.
 * - `model_glob` (warning): a `*` in an `llm_model` / `llm_provider` value (`claude-sonnet-*`, Amplifier): it names
 *   no model, so the declaration is not applied and the node keeps the run's default model.
 * - `selector_glob` (warning): a `*` in an `#id` or `.class` selector (`#review_*`): applied as a glob over ids or
 *   class names, which spec §8.2 does not have.
 *
 * `span` is inside the stylesheet text; `fix` says what to write instead.
 */
export interface StylesheetDiagnostic {
  readonly severity: 'warning' | 'error';
  readonly code: StylesheetDiagnosticCode;
  readonly message: string;
  readonly span: StylesheetSpan;
  readonly fix: string;
  /** The replacement the fix proposes (a property name, value or selector), when there is one. */
  readonly suggestion?: string | undefined;
}

/** A parsed model stylesheet, spec §8: its rules in source order and the diagnostics found. */
export interface ParsedStylesheet {
  readonly rules: readonly StylesheetRule[];
  readonly diagnostics: readonly StylesheetDiagnostic[];
}
