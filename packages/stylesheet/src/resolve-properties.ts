import type { ParsedStylesheet, StylesheetDeclaration, StylesheetRule } from './stylesheet-ast.js';

/** The node facts a selector can match, spec §8.3. Structural, so any node model satisfies it. */
export interface StylesheetNode {
  readonly id: string;
  readonly shape: string;
  readonly classes: readonly string[];
}

/** The winning value of one property for a node, and where it came from. */
export interface ResolvedStyleProperty {
  readonly value: string;
  readonly rule: StylesheetRule;
  readonly declaration: StylesheetDeclaration;
}

/**
 * True when `rule`'s selector matches `node`, spec §8.3: `*` every node, a shape name the node's
 * `shape`, `.class` a node whose `classes` include it, `#id` the node with that `id`. Comparisons are
 * exact and case-sensitive; a `*` in an id or class selector matches any run of characters (`#review_*`).
 */
export function ruleMatches(rule: StylesheetRule, node: StylesheetNode): boolean {
  const { kind, value } = rule.selector;
  switch (kind) {
    case 'universal':
      return true;
    case 'shape':
      return node.shape === value;
    case 'class':
      return value.includes('*')
        ? node.classes.some((name) => globPattern(value).test(name))
        : node.classes.includes(value);
    case 'id':
      return value.includes('*') ? globPattern(value).test(node.id) : node.id === value;
  }
}

const globs = new Map<string, RegExp>();

/** The whole-name pattern of a selector glob: `*` stands for any run of characters. */
function globPattern(glob: string): RegExp {
  let pattern = globs.get(glob);
  if (pattern === undefined) {
    pattern = new RegExp(
      `^${glob
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
        .join('.*')}$`,
    );
    globs.set(glob, pattern);
  }
  return pattern;
}

/**
 * The stylesheet's value for each property on `node`, spec §8.3: among the matching rules the highest
 * specificity wins (`#id` > `.class` > shape > `*`), and at equal specificity the later rule (and
 * within a rule the later declaration) wins. Properties no matching rule sets are absent.
 *
 * The caller applies these only where the node has no explicit attribute (spec §8.5); that is the
 * stylesheet transform's job in `@attractor/graph`.
 *
 * @example
 * ```ts
 * const stylesheet = parseStylesheet('* { llm_model: a; } .code { llm_model: b; }');
 * resolveProperties(stylesheet, { id: 'implement', shape: 'box', classes: ['code'] }).llm_model?.value; // 'b'
 * ```
 */
export function resolveProperties(
  stylesheet: ParsedStylesheet,
  node: StylesheetNode,
): Readonly<Record<string, ResolvedStyleProperty>> {
  const resolved: Record<string, ResolvedStyleProperty> = {};
  for (const rule of stylesheet.rules) {
    if (!ruleMatches(rule, node)) continue;
    for (const declaration of rule.declarations) {
      const current = resolved[declaration.property];
      // Rules are visited in source order, so ">=" lets the later of two equal rules win.
      if (current === undefined || rule.specificity >= current.rule.specificity) {
        resolved[declaration.property] = { value: declaration.value, rule, declaration };
      }
    }
  }
  return resolved;
}
