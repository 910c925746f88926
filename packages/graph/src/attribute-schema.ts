/**
 * The attribute schema: every DOT key Attractor understands (spec Appendix A, the handler keys of §4
 * and docs/architecture.md "Decisions"), its scope and its value parser (DOT string → typed value).
 *
 * Which handler reads a key is not said here: a handler declares the keys it reads in its own zod `attributes`
 * schema (`defineHandler`; the built-in handlers' schemas are `SPEC_HANDLER_DECLARATIONS`, built from these value
 * types by `attributeSchema`). Lint's `inert_attribute` and `attribute_type` read those declarations.
 *
 * This is the only place where DOT snake_case keys map to the camelCase fields of the typed model
 * (CONTRIBUTING.md "Files and names"). Parsing a value never throws: a malformed value yields `undefined` for
 * the typed field, and the `attribute_type` lint rule reports it at the value's span.
 *
 * The value parsers are plain functions rather than zod schemas: the value types are small (integers,
 * booleans, durations, enumerations and comma-separated lists of them), they type every node of a large graph, and
 * loading all of zod cost every CLI command about 80 ms of CPU (95 modules, 850 KB, most of it locales), a fifth of
 * `attractor validate`. The handler schemas wrap them with `zod/mini` (about 45 KB of the validate bundle).
 */
import { BACKEND_VALUES } from '@attractor/stylesheet';
import { FOREACH_MODES, ITEM_ERROR_POLICIES } from './foreach-mode.js';
import type {
  FidelityMode,
  GraphAttributes,
  GraphEdge,
  GraphNode,
  GraphSettings,
  ReasoningEffort,
} from './graph.js';
import {
  type InputDeclaration,
  parseInputDeclaration,
  parseOutputsDeclaration,
  parseStateDeclaration,
  type StateMergeRule,
} from './input-declaration.js';

/** Where an attribute may be written. */
export type AttributeScope = 'graph' | 'node' | 'edge';

/** Join policies of the parallel handler (spec §4.8, docs/architecture.md "Parallel results"). */
export type JoinPolicy = 'wait_all' | 'first_success' | 'k_of_n' | 'quorum';

/** The coding tools of coding-agent-loop-spec §3.3 that the `tools` node attribute may name. */
export const CODING_TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob'] as const;

/** A coding tool name accepted by the `tools` attribute. */
export type CodingToolName = (typeof CODING_TOOL_NAMES)[number];

/** The fidelity modes of spec §5.4, in the spec's order. */
export const FIDELITY_MODES = [
  'full',
  'truncate',
  'compact',
  'summary:low',
  'summary:medium',
  'summary:high',
] as const satisfies readonly FidelityMode[];

/** Duration units accepted in DOT values, with their length in milliseconds (spec §2.4). */
const DURATION_UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Turns a DOT value into a typed value, or `undefined` when the text is malformed. Never throws.
 * Durations come out in milliseconds.
 */
export type AttributeValueParser<TValue> = (text: string) => TValue | undefined;

const INTEGER_TEXT = /^-?\d+$/;
const DURATION_TEXT = /^(\d+)(ms|s|m|h|d)?$/;

/** An integer (surrounding blanks allowed) that is a safe integer no smaller than `minimum`. */
function integerParser(minimum: number): AttributeValueParser<number> {
  return (text) => {
    const trimmed = text.trim();
    if (!INTEGER_TEXT.test(trimmed)) return undefined;
    const value = Number(trimmed);
    return Number.isSafeInteger(value) && value >= minimum ? value : undefined;
  };
}

/** A finite decimal number of at least 0 (`2`, `0.5`, `12.75`), surrounding blanks allowed. */
const parseNonNegativeNumber: AttributeValueParser<number> = (text) => {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
};

/** One of `members`, surrounding blanks allowed. */
function enumParser<const TMember extends string>(
  members: readonly TMember[],
): AttributeValueParser<TMember> {
  return (text) => {
    const trimmed = text.trim();
    return (members as readonly string[]).includes(trimmed) ? (trimmed as TMember) : undefined;
  };
}

/** Comma-separated names, each trimmed, empty ones dropped; undefined when one is not in `members`. */
function listOf<TMember extends string>(members: readonly TMember[], text: string): TMember[] | undefined {
  const names = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return names.every((name) => (members as readonly string[]).includes(name))
    ? (names as TMember[])
    : undefined;
}

const parseString: AttributeValueParser<string> = (text) => text;

const parseBoolean: AttributeValueParser<boolean> = (text) => {
  const trimmed = text.trim();
  return trimmed === 'true' ? true : trimmed === 'false' ? false : undefined;
};

/**
 * `<digits><unit>` in milliseconds. A bare integer (`timeout="300"`, common in pipelines written for
 * other runners) is read as seconds; lint `duration_unit` warns so the author writes the unit.
 */
const parseDuration: AttributeValueParser<number> = (text) => {
  const match = DURATION_TEXT.exec(text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * DURATION_UNIT_MS[(match[2] ?? 's') as keyof typeof DURATION_UNIT_MS];
};

const MANAGER_ACTION_NAMES = ['observe', 'steer', 'wait'] as const;

/** At least one of observe, steer, wait, comma-separated. */
const parseManagerActions: AttributeValueParser<Array<(typeof MANAGER_ACTION_NAMES)[number]>> = (text) => {
  const actions = listOf(MANAGER_ACTION_NAMES, text);
  return actions === undefined || actions.length === 0 ? undefined : actions;
};

/** `tools="none"` → `[]`; `tools="read_file,grep"` → the listed tools; `tools="all"` → every tool. */
const parseTools: AttributeValueParser<CodingToolName[]> = (text) => {
  const trimmed = text.trim();
  if (trimmed === 'none') return [];
  if (trimmed === 'all') return [...CODING_TOOL_NAMES];
  return listOf(CODING_TOOL_NAMES, trimmed);
};

/** How an attribute's value is typed; `expected` is used in diagnostics ("expected a duration ..."). */
interface ValueType<TValue> {
  readonly parse: AttributeValueParser<TValue>;
  readonly expected: string;
  /** The values to choose from, when there are few (an enumeration, a boolean, the names of a list). */
  readonly values?: readonly string[];
}

function valueType<TValue>(
  parse: AttributeValueParser<TValue>,
  expected: string,
  values?: readonly string[],
): ValueType<TValue> {
  return values === undefined ? { parse, expected } : { parse, expected, values };
}

const STRING = valueType(parseString, 'a string');
const INTEGER = valueType(integerParser(Number.MIN_SAFE_INTEGER), 'an integer such as 3');
const NON_NEGATIVE_INTEGER = valueType(integerParser(0), 'a non-negative integer such as 3');
const POSITIVE_INTEGER = valueType(integerParser(1), 'a positive integer such as 4');
const NON_NEGATIVE_NUMBER = valueType(parseNonNegativeNumber, 'a non-negative number such as 2.5');
const BOOLEAN = valueType(parseBoolean, 'true or false', ['true', 'false']);
const DURATION = valueType(parseDuration, 'a duration such as 250ms, 900s, 15m, 2h or 1d');
const FIDELITY = valueType(enumParser(FIDELITY_MODES), `one of ${FIDELITY_MODES.join(', ')}`, FIDELITY_MODES);
const REASONING_EFFORT = valueType(enumParser(['low', 'medium', 'high']), 'one of low, medium, high', [
  'low',
  'medium',
  'high',
]);
const FAN_IN_MODE = valueType(enumParser(['pick', 'merge']), 'one of pick, merge', ['pick', 'merge']);
const BACKEND = valueType(enumParser(BACKEND_VALUES), `one of ${BACKEND_VALUES.join(', ')}`, BACKEND_VALUES);
const JOIN_POLICIES = [
  'wait_all',
  'first_success',
  'k_of_n',
  'quorum',
] as const satisfies readonly JoinPolicy[];
const JOIN_POLICY = valueType(enumParser(JOIN_POLICIES), `one of ${JOIN_POLICIES.join(', ')}`, JOIN_POLICIES);
const FOREACH_MODE = valueType(
  enumParser(FOREACH_MODES),
  `one of ${FOREACH_MODES.join(', ')}`,
  FOREACH_MODES,
);
const ITEM_ERROR_POLICY = valueType(
  enumParser(ITEM_ERROR_POLICIES),
  `one of ${ITEM_ERROR_POLICIES.join(', ')}`,
  ITEM_ERROR_POLICIES,
);
/** A name of letters, digits and `_`, not starting with a digit (`as="file"`). */
const NAME = valueType(
  (text) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(text.trim()) ? text.trim() : undefined),
  'a name of letters, digits and _ such as file',
);
const HUMAN_INPUT = valueType(enumParser(['choice', 'text']), 'one of choice, text', ['choice', 'text']);
const MANAGER_ACTIONS = valueType(
  parseManagerActions,
  'a comma-separated list of observe, steer, wait',
  MANAGER_ACTION_NAMES,
);
const WORKSPACE_MODES = ['git', 'copy', 'in-place', 'auto'] as const;
const WORKSPACE_MODE = valueType(
  enumParser(WORKSPACE_MODES),
  `one of ${WORKSPACE_MODES.join(', ')}`,
  WORKSPACE_MODES,
);
const JOIN_MERGES = ['git', 'pick', 'none'] as const;
const JOIN_MERGE = valueType(enumParser(JOIN_MERGES), `one of ${JOIN_MERGES.join(', ')}`, JOIN_MERGES);
const TOOLS = valueType(
  parseTools,
  `none, all, or a comma-separated list of ${CODING_TOOL_NAMES.join(', ')}`,
  ['none', 'all', ...CODING_TOOL_NAMES],
);

/** Everything the schema knows about one DOT key. */
export interface AttributeDefinition<TValue = unknown> {
  /** The canonical DOT key. */
  readonly key: string;
  /** Where the key may be written. */
  readonly scopes: readonly AttributeScope[];
  /** Turns the DOT string into the typed value (`undefined` when malformed; never throws). */
  readonly parse: AttributeValueParser<TValue>;
  /** What a valid value looks like, for diagnostics. */
  readonly expected: string;
  /**
   * The values to choose from, for an editor's completion: the members of an enumeration (`join_policy`), `true` and
   * `false`, or the names a comma-separated list takes (`tools`, `manager.actions`). Absent for free values.
   */
  readonly values?: readonly string[];
  /** One-line description. */
  readonly description: string;
  /** The value that applies when the key is not written, as a reader would say it (`box`, `0`, `no limit`). */
  readonly default: string;
  /**
   * Where the Attractor specification describes the key (`§2.6, §3.5`); absent for the keys this implementation
   * adds (loop guards, budgets, `backend`, ...; see the package README).
   */
  readonly spec?: string;
}

function define<TValue>(
  key: string,
  scopes: readonly AttributeScope[],
  type: ValueType<TValue>,
  description: string,
  documentation: { readonly default: string; readonly spec?: string },
): AttributeDefinition<TValue> {
  return {
    key,
    scopes,
    parse: type.parse,
    expected: type.expected,
    ...(type.values === undefined ? {} : { values: type.values }),
    description,
    ...documentation,
  };
}

/**
 * Every key Attractor understands, by canonical DOT key: spec Appendix A, the handler keys of §4 and
 * the loop guards, join policies and human-gate defaults of docs/architecture.md "Decisions".
 */
export const ATTRIBUTE_DEFINITIONS = {
  // Shared by graph, node and edge.
  label: define('label', ['graph', 'node', 'edge'], STRING, 'Display name or edge caption / routing key.', {
    default: 'the node id on a node; "" on the graph and on an edge',
    spec: '§2.5, §2.6, §2.7',
  }),
  // Graph (spec §2.5, Appendix A, docs/architecture.md "Decisions").
  goal: define('goal', ['graph'], STRING, 'Pipeline goal, exposed as $goal.', {
    default: '""',
    spec: '§2.5',
  }),
  model_stylesheet: define('model_stylesheet', ['graph'], STRING, 'CSS-like model stylesheet (spec §8).', {
    default: '""',
    spec: '§8',
  }),
  default_max_retries: define(
    'default_max_retries',
    ['graph'],
    NON_NEGATIVE_INTEGER,
    'Retries for nodes without max_retries.',
    { default: '0', spec: '§2.5' },
  ),
  default_fidelity: define('default_fidelity', ['graph'], FIDELITY, 'Default context fidelity mode.', {
    default: 'unset (compact when a run needs one)',
    spec: '§2.5, §5.4',
  }),
  default_thread: define(
    'default_thread',
    ['graph'],
    STRING,
    'Graph-level default thread for full fidelity.',
    { default: 'unset', spec: '§5.4' },
  ),
  max_node_visits: define('max_node_visits', ['graph'], POSITIVE_INTEGER, 'Loop guard: visits per node.', {
    default: '25',
  }),
  max_steps: define('max_steps', ['graph'], POSITIVE_INTEGER, 'Loop guard: node executions per run.', {
    default: '1000, or 10 per node in graphs of over 100 nodes',
  }),
  max_gate_retries: define('max_gate_retries', ['graph'], NON_NEGATIVE_INTEGER, 'Goal-gate jumps per run.', {
    default: '5',
  }),
  max_budget_usd: define(
    'max_budget_usd',
    ['graph'],
    NON_NEGATIVE_NUMBER,
    'Run budget in USD: the run stops before the next model call once its model calls (parallel branches and child runs included) cost this much.',
    { default: 'no budget' },
  ),
  max_tokens: define(
    'max_tokens',
    ['graph'],
    POSITIVE_INTEGER,
    'Run budget in tokens: the run stops before the next model call once its model calls used this many.',
    { default: 'no budget' },
  ),
  inputs: define(
    'inputs',
    ['graph'],
    STRING,
    'What the pipeline takes when it starts (README "Typed data"): "repo: string, issue: integer, labels?: string[]" or a JSON Schema file such as "schemas/inputs.json" (relative to the DOT file). $input.<name> expands in prompts and tool commands.',
    { default: 'no inputs' },
  ),
  state: define(
    'state',
    ['graph'],
    STRING,
    'Declared state fields and how parallel branches\' writes merge at their join (README "Typed data"): "findings: append, summary: replace, scores: merge_object". With state declared, two branches writing the same undeclared key fail the join.',
    { default: "none (the untyped context: a fan-in applies the selected branch's updates)" },
  ),
  workspace: define(
    'workspace',
    ['graph'],
    WORKSPACE_MODE,
    'Where the run changes files (README "Workspaces"): git (a worktree and a commit per stage), copy, in-place, or auto (git inside a repository). --workspace overrides it.',
    { default: 'auto' },
  ),
  'stack.child_dotfile': define(
    'stack.child_dotfile',
    ['graph', 'node'],
    STRING,
    'Child DOT file supervised by a manager loop.',
    { default: '""', spec: '§4.11' },
  ),
  'stack.child_workdir': define(
    'stack.child_workdir',
    ['graph', 'node'],
    STRING,
    'Working directory of the child run.',
    { default: "the run's working directory", spec: '§4.11' },
  ),
  'tool_hooks.pre': define(
    'tool_hooks.pre',
    ['graph', 'node'],
    STRING,
    'Shell command before each LLM tool call.',
    { default: '""', spec: '§9.7' },
  ),
  'tool_hooks.post': define(
    'tool_hooks.post',
    ['graph', 'node'],
    STRING,
    'Shell command after each LLM tool call.',
    { default: '""', spec: '§9.7' },
  ),
  // Node (spec §2.6, Appendix A).
  shape: define('shape', ['node'], STRING, 'Graphviz shape; selects the handler type.', {
    default: 'box',
    spec: '§2.6, §2.8',
  }),
  type: define('type', ['node'], STRING, 'Explicit handler type.', {
    default: '"" (the shape decides)',
    spec: '§2.6, §4.2',
  }),
  prompt: define(
    'prompt',
    ['node'],
    STRING,
    'LLM instruction (a manager loop: its steering message); $goal is expanded.',
    { default: '"" (an LLM stage then uses its label)', spec: '§2.6, §4.5' },
  ),
  max_retries: define('max_retries', ['node'], NON_NEGATIVE_INTEGER, 'Additional attempts.', {
    default: "the graph's default_max_retries",
    spec: '§2.6, §3.5',
  }),
  goal_gate: define('goal_gate', ['node'], BOOLEAN, 'Must succeed before the pipeline exits.', {
    default: 'false',
    spec: '§2.6, §3.4',
  }),
  retry_target: define('retry_target', ['graph', 'node'], STRING, 'Jump target on failure.', {
    default: '""',
    spec: '§2.5, §2.6, §3.7',
  }),
  fallback_retry_target: define(
    'fallback_retry_target',
    ['graph', 'node'],
    STRING,
    'Secondary jump target.',
    { default: '""', spec: '§2.5, §2.6, §3.7' },
  ),
  fidelity: define('fidelity', ['node', 'edge'], FIDELITY, 'Context fidelity mode.', {
    default: "the edge's, else the graph's default_fidelity, else compact",
    spec: '§2.6, §2.7, §5.4',
  }),
  thread_id: define('thread_id', ['node', 'edge'], STRING, 'Session reuse key.', {
    default: 'derived',
    spec: '§2.6, §2.7, §5.4',
  }),
  class: define('class', ['node'], STRING, 'Comma-separated stylesheet classes.', {
    default: '""',
    spec: '§2.12, §8',
  }),
  timeout: define('timeout', ['node'], DURATION, 'Maximum time of one attempt.', {
    default: 'no limit',
    spec: '§2.6',
  }),
  llm_model: define('llm_model', ['node'], STRING, 'LLM model id.', {
    default: 'the stylesheet, else --model',
    spec: '§2.6, §8',
  }),
  llm_provider: define('llm_provider', ['node'], STRING, 'LLM provider key.', {
    default: 'detected from the model',
    spec: '§2.6, §8',
  }),
  reasoning_effort: define('reasoning_effort', ['node'], REASONING_EFFORT, 'LLM reasoning effort.', {
    default: 'high',
    spec: '§2.6',
  }),
  backend: define(
    'backend',
    ['node'],
    BACKEND,
    "Which backend runs this LLM stage (api, claude-code, codex, gemini-cli). Default: the run's --backend.",
    { default: "the run's --backend" },
  ),
  auto_status: define('auto_status', ['node'], BOOLEAN, 'Synthesize SUCCESS when no status is written.', {
    default: 'false',
    spec: '§2.6, Appendix C',
  }),
  outputs: define(
    'outputs',
    ['graph', 'node'],
    STRING,
    'On the graph: the context keys that form the run\'s result, comma-separated (README "Typed data"), written to output.json when the run succeeds. On a node: the context keys it sets (documentation, as Amplifier and allouis pipelines write it); a sub-pipeline hands back every key its child sets.',
    { default: 'no output on the graph; "" on a node' },
  ),
  allow_partial: define('allow_partial', ['node'], BOOLEAN, 'Accept PARTIAL_SUCCESS on retry exhaustion.', {
    default: 'false',
    spec: '§2.6',
  }),
  max_visits: define('max_visits', ['node'], POSITIVE_INTEGER, 'Loop guard: visits of this node per run.', {
    default: "the graph's max_node_visits",
  }),
  tools: define('tools', ['node'], TOOLS, 'Coding tools the AI backend offers this node.', {
    default: 'all',
    spec: 'coding-agent-loop-spec §3.3',
  }),
  mcp_servers: define(
    'mcp_servers',
    ['node'],
    STRING,
    'MCP servers (comma-separated names defined in attractor.config.*) whose tools the AI backend offers this node.',
    { default: 'none' },
  ),
  // Handler keys (spec §4.6-§4.11, docs/architecture.md "Decisions").
  output_schema: define(
    'output_schema',
    ['node'],
    STRING,
    'The JSON Schema of the stage\'s output (README "Typed data"): inline JSON, the compact form "verdict: string, issues?: string[]", or a .json file relative to the DOT file. An LLM stage asks for structured output; a tool stage\'s stdout must be that JSON. Invalid output fails the stage (retryable).',
    { default: 'none (text output)' },
  ),
  out_map: define(
    'out_map',
    ['node'],
    STRING,
    'Where the fields of a structured output (or the outputs of a sub-pipeline node\'s child) go: "verdict -> review.verdict, issues -> review.issues" (README "Typed data").',
    { default: 'each top-level field under <node id>.<field>' },
  ),
  tool_command: define('tool_command', ['node'], STRING, 'Shell command of a tool node.', {
    default: '""',
    spec: '§4.10',
  }),
  sandbox_network: define(
    'sandbox_network',
    ['node'],
    BOOLEAN,
    "Under the sandbox (--sandbox bwrap): tool commands and the AI backend's shell commands keep the network.",
    { default: 'false' },
  ),
  tool_output_max_bytes: define(
    'tool_output_max_bytes',
    ['node'],
    POSITIVE_INTEGER,
    'Bytes of stdout and of stderr kept in stdout.txt/stderr.txt (default 100000000); the rest is drained and the truncation recorded.',
    { default: '100000000' },
  ),
  max_parallel: define(
    'max_parallel',
    ['node'],
    POSITIVE_INTEGER,
    'Concurrent branches (a foreach: items at once in mode=parallel).',
    { default: '4', spec: '§4.8' },
  ),
  over: define(
    'over',
    ['node'],
    STRING,
    'The list a foreach node runs its body for, item by item (README "Typed data"): a context key such as state.files, input.files or files.',
    { default: 'none (required)' },
  ),
  as: define(
    'as',
    ['node'],
    NAME,
    'The name each item of a foreach is bound to in its body: the context key item.<as>, and $item.<as> in prompts and tool commands.',
    { default: 'item' },
  ),
  mode: define('mode', ['node'], FOREACH_MODE, 'A foreach runs its items in parallel or one after another.', {
    default: FOREACH_MODES[0],
  }),
  on_item_error: define(
    'on_item_error',
    ['node'],
    ITEM_ERROR_POLICY,
    'What a foreach does when an item fails: fail (the node fails; finished items are kept for a resume), collect (the failure is recorded in the collect list and the run goes on), skip (the item is left out).',
    { default: 'fail' },
  ),
  collect: define(
    'collect',
    ['node'],
    STRING,
    'The declared list field (state="<field>: append") a foreach appends one result per item to, in item order: { index, item, status, output, failure_reason, updates }.',
    { default: 'none' },
  ),
  join_policy: define('join_policy', ['node'], JOIN_POLICY, 'How branch results combine.', {
    default: 'wait_all',
    spec: '§4.8',
  }),
  join_k: define('join_k', ['node'], POSITIVE_INTEGER, 'Successes needed by k_of_n.', {
    default: 'none',
    spec: '§4.8',
  }),
  branch_timeout: define('branch_timeout', ['node'], DURATION, 'Time limit of one branch.', {
    default: 'no limit',
    spec: '§4.8',
  }),
  fan_in_mode: define(
    'fan_in_mode',
    ['node'],
    FAN_IN_MODE,
    'pick (default): the fan-in selects one branch; merge: its prompt combines every branch into one output.',
    { default: 'pick', spec: '§4.9' },
  ),
  join_merge: define(
    'join_merge',
    ['node'],
    JOIN_MERGE,
    "How a fan-in brings the parallel branches' files together in a workspace: git (default; merge every successful branch), pick (the selected branch's files), none.",
    { default: 'git' },
  ),
  'human.default_choice': define(
    'human.default_choice',
    ['node'],
    STRING,
    'Choice taken when the interview times out.',
    { default: 'none', spec: '§4.6, §6.5' },
  ),
  'human.input': define(
    'human.input',
    ['node'],
    HUMAN_INPUT,
    'text: the gate asks for free text (FREEFORM) instead of a choice.',
    { default: 'choice', spec: '§4.6' },
  ),
  'human.context_key': define(
    'human.context_key',
    ['node'],
    STRING,
    'Context key that also receives the text of a text gate.',
    { default: 'none', spec: '§4.6' },
  ),
  'manager.poll_interval': define(
    'manager.poll_interval',
    ['node'],
    DURATION,
    'Delay between observation cycles.',
    { default: '45s', spec: '§4.11' },
  ),
  'manager.max_cycles': define('manager.max_cycles', ['node'], POSITIVE_INTEGER, 'Observation cycles.', {
    default: '1000',
    spec: '§4.11',
  }),
  'manager.stop_condition': define(
    'manager.stop_condition',
    ['node'],
    STRING,
    'Condition that ends the loop.',
    { default: '""', spec: '§4.11' },
  ),
  'manager.actions': define('manager.actions', ['node'], MANAGER_ACTIONS, 'observe, steer, wait.', {
    default: 'observe,wait',
    spec: '§4.11',
  }),
  graph_ref: define(
    'graph_ref',
    ['node'],
    STRING,
    'DOT file a subgraph node runs as a child pipeline, relative to this file.',
    { default: 'none', spec: '§9.4' },
  ),
  'stack.child_autostart': define(
    'stack.child_autostart',
    ['node'],
    BOOLEAN,
    'Start the child pipeline automatically.',
    { default: 'true', spec: '§4.11' },
  ),
  // Edge (spec §2.7).
  condition: define('condition', ['edge'], STRING, 'Guard expression (spec §10).', {
    default: '""',
    spec: '§2.7, §10',
  }),
  weight: define('weight', ['edge'], INTEGER, 'Edge priority (higher wins).', {
    default: '0',
    spec: '§2.7, §3.3',
  }),
  loop_restart: define('loop_restart', ['edge'], BOOLEAN, 'Restart the run with a fresh log directory.', {
    default: 'false',
    spec: '§2.7',
  }),
} as const;

/** A canonical DOT key known to the schema. */
export type AttributeKey = keyof typeof ATTRIBUTE_DEFINITIONS;

/** The typed value of a known key (`number` for `max_parallel`, `JoinPolicy` for `join_policy`, ...). */
export type AttributeValue<TKey extends AttributeKey> = Exclude<
  ReturnType<(typeof ATTRIBUTE_DEFINITIONS)[TKey]['parse']>,
  undefined
>;

/** Keys that may be written on a node. */
export type NodeAttributeKey = {
  [TKey in AttributeKey]: 'node' extends (typeof ATTRIBUTE_DEFINITIONS)[TKey]['scopes'][number]
    ? TKey
    : never;
}[AttributeKey];

/** Keys that may be written on an edge. */
export type EdgeAttributeKey = {
  [TKey in AttributeKey]: 'edge' extends (typeof ATTRIBUTE_DEFINITIONS)[TKey]['scopes'][number]
    ? TKey
    : never;
}[AttributeKey];

/** Keys that may be written on the graph. */
export type GraphAttributeKey = {
  [TKey in AttributeKey]: 'graph' extends (typeof ATTRIBUTE_DEFINITIONS)[TKey]['scopes'][number]
    ? TKey
    : never;
}[AttributeKey];

/**
 * The prefix of a subgraph node's variables: `var.diff_cmd="jj diff"` sets `diff_cmd` in the child pipeline's
 * context. Any `var.<name>` key is known on a `subgraph` node.
 */
export const SUBGRAPH_VARIABLE_PREFIX = 'var.';

/**
 * The prefix of a subgraph node's inputs (README "Typed data"): `input.file="$context.target"` gives the child
 * pipeline's declared input `file`, which it sees as `$input.file` / `input.file`. Any `input.<name>` key is known on
 * a `subgraph` node.
 */
export const SUBGRAPH_INPUT_PREFIX = 'input.';

/**
 * Attribute names of other runners accepted as aliases of a canonical key (docs/architecture.md "Dialect",
 * issue 19). The attribute is stored under the canonical key with `writtenKey` set; lint `dialect_alias`
 * warns (an error with `--strict`). Fabro: `script` (tool command), `model` / `provider`,
 * `stack.child_workflow`. streamweave: `command` (with `type="exec"`). Amplifier: `dot_file` (a sub-pipeline,
 * with `shape=folder`), and the manager's `max_cycles`, `wait_ms` and `stop_condition_key` without the
 * `manager.` prefix (values converted by `DIALECT_VALUE_CONVERSIONS`). Kilroy: `context_thread_default`; other
 * runners' documentation: `default_thread_id`.
 */
export const DIALECT_ALIASES: Readonly<Record<string, AttributeKey>> = {
  llm_prompt: 'prompt',
  node_type: 'type',
  context_fidelity_default: 'default_fidelity',
  context_thread_default: 'default_thread',
  default_thread_id: 'default_thread',
  default_max_retry: 'default_max_retries',
  script: 'tool_command',
  command: 'tool_command',
  model: 'llm_model',
  provider: 'llm_provider',
  'stack.child_workflow': 'stack.child_dotfile',
  dot_file: 'graph_ref',
  max_cycles: 'manager.max_cycles',
  wait_ms: 'manager.poll_interval',
  stop_condition_key: 'manager.stop_condition',
};

/**
 * Graphviz presentation attributes: accepted everywhere, ignored by Attractor, never reported as unknown.
 */
export const GRAPHVIZ_ATTRIBUTES: ReadonlySet<string> = new Set([
  'rankdir',
  'rank',
  'ranksep',
  'nodesep',
  'splines',
  'compound',
  'concentrate',
  'newrank',
  'ordering',
  'size',
  'ratio',
  'pad',
  'margin',
  'dpi',
  'bgcolor',
  'color',
  'fillcolor',
  'fontcolor',
  'fontname',
  'fontsize',
  'style',
  'penwidth',
  'peripheries',
  'width',
  'height',
  'fixedsize',
  'xlabel',
  'tooltip',
  'URL',
  'href',
  'id',
  'group',
  'labelloc',
  'labeljust',
  'arrowhead',
  'arrowtail',
  'arrowsize',
  'dir',
  'constraint',
  'minlen',
  'headlabel',
  'taillabel',
  'headport',
  'tailport',
  'lhead',
  'ltail',
  'sides',
  'skew',
  'distortion',
  'orientation',
  'regular',
  'gradientangle',
  'comment',
]);

/** True when `text` is a duration written without a unit (`"300"`), which is read as seconds. */
export function isUnitlessDuration(text: string): boolean {
  return /^\d+$/.test(text.trim());
}

/** Result of typing one attribute value. */
export type ParsedAttributeValue<TValue> =
  | { readonly ok: true; readonly value: TValue }
  | { readonly ok: false; readonly expected: string };

/**
 * The schema entry of a canonical key, or undefined for a key the schema does not know.
 * See spec Appendix A.
 */
export function attributeDefinition(key: string): AttributeDefinition | undefined {
  return Object.hasOwn(ATTRIBUTE_DEFINITIONS, key)
    ? (ATTRIBUTE_DEFINITIONS[key as AttributeKey] as AttributeDefinition)
    : undefined;
}

/**
 * Types one DOT value with the key's value parser. Never throws.
 *
 * @returns `{ ok: true, value }` or `{ ok: false, expected }` where `expected` says what a valid value
 *   looks like (e.g. "a duration such as 250ms, 900s, 15m, 2h or 1d"). Durations are in milliseconds.
 */
export function parseAttributeValue<TKey extends AttributeKey>(
  key: TKey,
  text: string,
): ParsedAttributeValue<AttributeValue<TKey>> {
  const definition = ATTRIBUTE_DEFINITIONS[key] as AttributeDefinition;
  const value = definition.parse(text);
  return value !== undefined
    ? { ok: true, value: value as AttributeValue<TKey> }
    : { ok: false, expected: definition.expected };
}

function typed<TKey extends AttributeKey>(
  attributes: GraphAttributes,
  key: TKey,
): AttributeValue<TKey> | undefined {
  const attribute = attributes[key];
  if (attribute === undefined) return undefined;
  return (ATTRIBUTE_DEFINITIONS[key] as AttributeDefinition<AttributeValue<TKey>>).parse(attribute.value);
}

function nonEmpty(attributes: GraphAttributes, key: string): string | undefined {
  const value = attributes[key]?.value;
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The typed value of a node attribute, for handlers: `nodeAttribute(node, 'max_parallel')` is
 * `number | undefined`, `nodeAttribute(node, 'join_policy')` is `JoinPolicy | undefined`,
 * `nodeAttribute(node, 'manager.poll_interval')` is milliseconds, `nodeAttribute(node, 'tools')` is
 * `CodingToolName[]` (`[]` for `tools="none"`).
 *
 * Undefined when the attribute is absent or malformed (lint `attribute_type` reports the latter), so a
 * handler applies its own default and never parses strings itself. Unknown keys stay readable as
 * strings through `node.attributes[key]?.value`.
 */
export function nodeAttribute<TKey extends NodeAttributeKey>(
  node: GraphNode,
  key: TKey,
): AttributeValue<TKey> | undefined {
  return typed(node.attributes, key);
}

/** The typed value of an edge attribute; see `nodeAttribute`. */
export function edgeAttribute<TKey extends EdgeAttributeKey>(
  edge: GraphEdge,
  key: TKey,
): AttributeValue<TKey> | undefined {
  return typed(edge.attributes, key);
}

/** The typed value of a graph attribute; see `nodeAttribute`. */
export function graphAttribute<TKey extends GraphAttributeKey>(
  graph: { readonly attributes: GraphAttributes },
  key: TKey,
): AttributeValue<TKey> | undefined {
  return typed(graph.attributes, key);
}

/** Splits a `class` value on commas, trimming and dropping empty names (spec §2.12). */
export function splitClassList(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The typed node fields that `nodeFields` derives. */
export type NodeFields = Omit<
  GraphNode,
  'id' | 'span' | 'idSpan' | 'declared' | 'attributes' | 'classes' | 'subgraphClasses'
>;

/**
 * Derives the typed fields of a node (spec §2.6, Appendix A) from its attributes, with the spec's
 * defaults: `label` = id, `shape` = `box`, `reasoning_effort` = `high`, booleans false.
 */
export function nodeFields(id: string, attributes: GraphAttributes): NodeFields {
  const fields = {} as Record<string, unknown>;
  setNodeFields(fields, id, attributes);
  return fields as unknown as NodeFields;
}

/** What a node is besides the fields derived from its attributes. */
export type NodeParts = Pick<
  GraphNode,
  'id' | 'span' | 'idSpan' | 'declared' | 'attributes' | 'classes' | 'subgraphClasses'
>;

/**
 * A node: `parts`, then the fields `nodeFields` derives from its attributes (with `prompt` instead of the derived
 * one when given), set one by one in one order. A spread (`{ ...parts, ...nodeFields() }`) gave every node of a
 * large graph a hidden class of its own, several hundred bytes each (issue 8).
 */
export function createNode(parts: NodeParts, prompt?: string): GraphNode {
  const node: Record<string, unknown> = { id: parts.id };
  if (parts.span !== undefined) node.span = parts.span;
  if (parts.idSpan !== undefined) node.idSpan = parts.idSpan;
  if (parts.declared !== undefined) node.declared = parts.declared;
  node.attributes = parts.attributes;
  node.classes = parts.classes;
  if (parts.subgraphClasses !== undefined) node.subgraphClasses = parts.subgraphClasses;
  setNodeFields(node, parts.id, parts.attributes);
  if (prompt !== undefined) node.prompt = prompt;
  return node as unknown as GraphNode;
}

function setNodeFields(target: Record<string, unknown>, id: string, attributes: GraphAttributes): void {
  target.label = attributes.label?.value ?? id;
  target.shape = nonEmpty(attributes, 'shape') ?? 'box';
  target.prompt = attributes.prompt?.value ?? '';
  target.goalGate = typed(attributes, 'goal_gate') ?? false;
  target.reasoningEffort = (typed(attributes, 'reasoning_effort') as ReasoningEffort | undefined) ?? 'high';
  target.autoStatus = typed(attributes, 'auto_status') ?? false;
  target.allowPartial = typed(attributes, 'allow_partial') ?? false;
  const type = nonEmpty(attributes, 'type');
  if (type !== undefined) target.type = type;
  const maxRetries = typed(attributes, 'max_retries');
  if (maxRetries !== undefined) target.maxRetries = maxRetries;
  const retryTarget = nonEmpty(attributes, 'retry_target');
  if (retryTarget !== undefined) target.retryTarget = retryTarget;
  const fallbackRetryTarget = nonEmpty(attributes, 'fallback_retry_target');
  if (fallbackRetryTarget !== undefined) target.fallbackRetryTarget = fallbackRetryTarget;
  const fidelity = typed(attributes, 'fidelity');
  if (fidelity !== undefined) target.fidelity = fidelity;
  const threadId = nonEmpty(attributes, 'thread_id');
  if (threadId !== undefined) target.threadId = threadId;
  const timeoutMs = typed(attributes, 'timeout');
  if (timeoutMs !== undefined) target.timeoutMs = timeoutMs;
  const llmModel = nonEmpty(attributes, 'llm_model');
  if (llmModel !== undefined) target.llmModel = llmModel;
  const llmProvider = nonEmpty(attributes, 'llm_provider');
  if (llmProvider !== undefined) target.llmProvider = llmProvider;
  const maxVisits = typed(attributes, 'max_visits');
  if (maxVisits !== undefined) target.maxVisits = maxVisits;
}

/** The typed edge fields that `edgeFields` derives. */
export type EdgeFields = Omit<GraphEdge, 'from' | 'to' | 'index' | 'span' | 'attributes'>;

/** Derives the typed fields of an edge (spec §2.7) from its attributes, with the spec's defaults. */
export function edgeFields(attributes: GraphAttributes): EdgeFields {
  const fields: Record<string, unknown> = {};
  setEdgeFields(fields, attributes);
  return fields as unknown as EdgeFields;
}

/** What an edge is besides the fields derived from its attributes. */
export type EdgeParts = Pick<GraphEdge, 'from' | 'to' | 'index' | 'span' | 'attributes'>;

/** An edge: `parts`, then the fields `edgeFields` derives, set one by one in one order (see `createNode`). */
export function createEdge(parts: EdgeParts): GraphEdge {
  const edge: Record<string, unknown> = { from: parts.from, to: parts.to, index: parts.index };
  if (parts.span !== undefined) edge.span = parts.span;
  edge.attributes = parts.attributes;
  setEdgeFields(edge, parts.attributes);
  return edge as unknown as GraphEdge;
}

function setEdgeFields(target: Record<string, unknown>, attributes: GraphAttributes): void {
  target.label = attributes.label?.value ?? '';
  target.condition = attributes.condition?.value.trim() ?? '';
  target.weight = typed(attributes, 'weight') ?? 0;
  target.loopRestart = typed(attributes, 'loop_restart') ?? false;
  const fidelity = typed(attributes, 'fidelity');
  if (fidelity !== undefined) target.fidelity = fidelity;
  const threadId = nonEmpty(attributes, 'thread_id');
  if (threadId !== undefined) target.threadId = threadId;
}

/** Options of {@link graphSettings}. */
export interface GraphSettingsOptions {
  /** Nodes in the graph: the default `max_steps` grows with them. Default 0. */
  readonly nodeCount?: number;
}

/**
 * The default `max_steps` of a graph of `nodeCount` nodes: 1000, or ten executions per node when that is more, so
 * that a pipeline's size alone never needs the flag (a 1,000-stage chain may run without `--max-steps`).
 */
export function defaultMaxSteps(nodeCount: number): number {
  return Math.max(1000, 10 * nodeCount);
}

/**
 * Derives the typed graph settings (spec §2.5, docs/architecture.md "Loop guards") from graph attributes,
 * with the defaults: `default_max_retries` 0, `max_node_visits` 25, `max_steps` {@link defaultMaxSteps} (1000, or 10
 * per node for graphs of more than 100 nodes), `max_gate_retries` 5.
 */
export function graphSettings(
  attributes: GraphAttributes,
  options: GraphSettingsOptions = {},
): GraphSettings {
  return {
    goal: attributes.goal?.value ?? '',
    label: attributes.label?.value ?? '',
    modelStylesheet: attributes.model_stylesheet?.value ?? '',
    defaultMaxRetries: typed(attributes, 'default_max_retries') ?? 0,
    maxNodeVisits: typed(attributes, 'max_node_visits') ?? 25,
    maxSteps: typed(attributes, 'max_steps') ?? defaultMaxSteps(options.nodeCount ?? 0),
    maxGateRetries: typed(attributes, 'max_gate_retries') ?? 5,
    ...withoutUndefined({
      retryTarget: nonEmpty(attributes, 'retry_target'),
      fallbackRetryTarget: nonEmpty(attributes, 'fallback_retry_target'),
      defaultFidelity: typed(attributes, 'default_fidelity') as FidelityMode | undefined,
      defaultThread: nonEmpty(attributes, 'default_thread'),
      maxBudgetUsd: typed(attributes, 'max_budget_usd'),
      maxTokens: typed(attributes, 'max_tokens'),
      toolHooksPre: nonEmpty(attributes, 'tool_hooks.pre'),
      toolHooksPost: nonEmpty(attributes, 'tool_hooks.post'),
      inputs: inputDeclaration(attributes),
    }),
    outputs: outputKeys(attributes),
    state: stateFields(attributes),
  };
}

/** The `inputs` declaration, when one is written and parses (lint `inputs_declaration` reports one that does not). */
function inputDeclaration(attributes: GraphAttributes): InputDeclaration | undefined {
  const text = attributes.inputs?.value;
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseInputDeclaration(text);
  return parsed.ok ? parsed.declaration : undefined;
}

/** The `outputs` keys; none when unset or malformed (lint `inputs_declaration` reports a malformed one). */
function outputKeys(attributes: GraphAttributes): readonly string[] {
  const text = attributes.outputs?.value;
  if (text === undefined) return [];
  const parsed = parseOutputsDeclaration(text);
  return parsed.ok ? parsed.keys : [];
}

/** The declared state fields and their merge rules; none when unset or malformed (lint `inputs_declaration`). */
function stateFields(attributes: GraphAttributes): Readonly<Record<string, StateMergeRule>> {
  const text = attributes.state?.value;
  if (text === undefined) return {};
  const parsed = parseStateDeclaration(text);
  return parsed.ok ? parsed.fields : {};
}

function withoutUndefined<TRecord extends Record<string, unknown>>(record: TRecord): Partial<TRecord> {
  // A plain loop: this runs for every node and edge, and Object.fromEntries(Object.entries(...)) allocates.
  const defined: Partial<TRecord> = {};
  for (const key in record) {
    if (record[key] !== undefined) defined[key] = record[key];
  }
  return defined;
}
