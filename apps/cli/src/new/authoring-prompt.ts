/**
 * The prompts of `attractor new`: what the model is told about writing an Attractor pipeline, made from the product's
 * own tables (the shapes and handler types, the attributes each handler reads, every attribute's meaning, the lint
 * rules), an example, and, for a revision, the draft with the diagnostics lint gave it.
 */
import {
  ATTRIBUTE_DEFINITIONS,
  type AttributeDefinition,
  attributeChecks,
  BUILT_IN_RULES,
  type HandlerLintInfo,
  SHAPE_TO_HANDLER_TYPE,
  SPEC_HANDLER_DECLARATIONS,
} from '@attractor/graph';

/** Options of {@link authoringPrompt}. */
export interface AuthoringPromptOptions {
  /** What the pipeline should do, in the user's words. */
  readonly description: string;
  /** An example pipeline that lints clean (DOT text). */
  readonly example: string;
  /** The plug-in handler types of `attractor.config.*` and what they declare (`registry.lintInfo()`). Default: none. */
  readonly pluginHandlers?: ReadonlyMap<string, HandlerLintInfo>;
}

/**
 * The first prompt of `attractor new`: the task, the language reference (spec §2: node shapes and the handler types
 * they select, the attributes each handler reads, every attribute with its value type and meaning; spec §10 edge
 * conditions; the lint rule names, spec §7), the example, and how to answer (one fenced `dot` block).
 */
export function authoringPrompt(options: AuthoringPromptOptions): string {
  const sections = [
    `Write an Attractor pipeline: a Graphviz DOT digraph that a runner executes node by node, following edges. The pipeline should do this:\n\n${options.description.trim()}`,
    ANSWER_FORMAT,
    `## Node shapes and handler types (spec §2.8)\n\n${handlerTable(options.pluginHandlers)}`,
    `## Attributes (spec Appendix A)\n\n${attributeTable()}`,
    ROUTING,
    `## Lint rules\n\nThe pipeline is checked with these rules; an error makes it unusable, a warning is worth fixing: ${BUILT_IN_RULES.map((rule) => rule.name).join(', ')}.`,
    `## Example\n\n\`\`\`dot\n${options.example.trim()}\n\`\`\``,
  ];
  return `${sections.join('\n\n')}\n`;
}

/** Options of {@link revisionPrompt}. */
export interface RevisionPromptOptions {
  /** What the pipeline should do, in the user's words. */
  readonly description: string;
  /** The previous answer's DOT text (or the whole answer, when it held no DOT). */
  readonly draft: string;
  /** What is wrong with it: lint diagnostics as `attractor validate` prints them, or why no DOT was found. */
  readonly problems: string;
}

/** The prompt of a later round: the draft, what is wrong with it, and the answer format again. */
export function revisionPrompt(options: RevisionPromptOptions): string {
  return `You wrote this Attractor pipeline for: ${options.description.trim()}

\`\`\`dot
${options.draft.trim()}
\`\`\`

It has these problems:

${options.problems.trim()}

Fix every problem and keep what the pipeline does. ${ANSWER_FORMAT.replace(/^## [^\n]*\n\n/, '')}
`;
}

const ANSWER_FORMAT = `## How to answer

Answer with the whole pipeline in one \`\`\`dot fenced block and nothing else of importance: do not create or edit files, do not run commands. Give the graph a CamelCase name, a \`goal\` graph attribute, exactly one start node (shape=Mdiamond) and one exit node (shape=Msquare), a \`label\` on every node, and a \`prompt\` on every LLM stage that says what to do and what to report. Every node must be reachable from start and reach exit.`;

const ROUTING = `## Routing (spec §3.3, §10)

After a node, the runner follows the first outgoing edge whose \`condition\` holds, else one whose \`label\` matches the stage's preferred label, else the highest \`weight\`, else an unconditional edge. A condition is clauses joined by \`&&\`, each \`key=value\` or \`key!=value\`, over \`outcome\` (success, fail, partial_success, retry, or a word the stage reports), \`preferred_label\`, and \`context.<key>\` (values stages set; a tool sets \`context.tool.output\`). A failed stage follows only an edge whose condition names its outcome (\`outcome=fail\`); give every tool node an edge for success and one for failure. The outgoing edges of a human gate (shape=hexagon) are its choices: label them like \`[Y] Yes\` and \`[N] No\`. Loops are edges back to an earlier node.`;

/** One line per shape: the handler type it selects and the attributes that handler reads. */
function handlerTable(pluginHandlers: ReadonlyMap<string, HandlerLintInfo> | undefined): string {
  const lines: string[] = [];
  for (const [shape, type] of Object.entries(SHAPE_TO_HANDLER_TYPE)) {
    lines.push(`- shape=${shape}: ${type}${keysOf(type)}`);
  }
  lines.push(
    `- type="subgraph": a sub-pipeline from another DOT file${keysOf('subgraph')}`,
    '- no shape (box): codergen, an LLM stage.',
  );
  for (const [type, info] of pluginHandlers ?? []) {
    const keys = info.attributeKeys ?? [];
    lines.push(
      `- type="${type}": a handler of this project${keys.length === 0 ? '' : `; reads ${keys.join(', ')}`}`,
    );
  }
  return lines.join('\n');
}

function keysOf(type: string): string {
  const declaration = SPEC_HANDLER_DECLARATIONS[type as keyof typeof SPEC_HANDLER_DECLARATIONS];
  if (declaration === undefined) return '';
  const keys = attributeChecks(declaration.attributes).attributeKeys;
  return keys.length === 0 ? '' : `; reads ${keys.join(', ')}`;
}

/** One line per attribute: key, where it goes, its value type, default and meaning. */
function attributeTable(): string {
  return Object.values(ATTRIBUTE_DEFINITIONS as Readonly<Record<string, AttributeDefinition>>)
    .map(
      (definition) =>
        `- ${definition.key} (${definition.scopes.join('/')}; ${definition.expected}; default ${definition.default}): ${definition.description}`,
    )
    .join('\n');
}
