/**
 * Edge selection run backwards (spec §3.3), for simulation: what a stage would have to return (status, preferred
 * label, suggested next ids, context values) for the walk to take a given edge, and, through the conditional nodes
 * right after it, a given path.
 */
import {
  type ConditionAst,
  type ConditionClause,
  ConditionSyntaxError,
  canonicalOutcome,
  parseCondition,
  resolveConditionKey,
} from '@attractor/condition';
import type { Graph, GraphEdge } from '@attractor/graph';
import type { JsonValue } from './json-value.js';
import type { Outcome, OutcomeStatus } from './outcome.js';
import { type EdgeConditionContext, selectEdge } from './select-edge.js';

/** What a stage returns to take the path: the fields of an {@link Outcome} that route. */
export interface EdgeAim {
  readonly status: OutcomeStatus;
  readonly preferredLabel?: string;
  readonly suggestedNextIds?: readonly string[];
  /** `baseUpdates` with the values chosen for the path's conditions over them. */
  readonly contextUpdates: Readonly<Record<string, JsonValue>>;
  /** The context keys whose values were chosen for the path (not those of `baseUpdates`), in key order. */
  readonly chosenKeys: readonly string[];
}

/** Options of {@link aimAtEdge}. */
export interface AimAtEdgeOptions {
  readonly graph: Graph;
  /**
   * The edges to take, in order: the first leaves the stage's node; each next one leaves the node the one before it
   * reaches, which must be a node that only routes (`conditional`, spec §4.7: it succeeds and sets nothing), so the
   * stage's context values are what its edges test.
   */
  readonly path: readonly GraphEdge[];
  /** The run context before the stage's updates. */
  readonly context: EdgeConditionContext;
  /**
   * The statuses the stage may end with, most wanted first. `fail` routes only along a matching conditional edge
   * (spec §3.7). Default: `['success']`.
   */
  readonly statuses?: readonly OutcomeStatus[];
  /**
   * Also try the statuses the conditions of the first node's edges compare `outcome` with (`outcome=fixed`,
   * `outcome=fail`), except `retry` (which the engine retries), then `partial_success` and `fail`, after `statuses`.
   * Default: false.
   */
  readonly statusesOfConditions?: boolean;
  /** Whether the stage may give a preferred label and suggested next ids (spec §3.3 steps 2-3). Default: true. */
  readonly routingHints?: boolean;
  /** Whether the stage may set context values the conditions test. Default: true. */
  readonly setsContext?: boolean;
  /**
   * Context updates the stage makes in any case (the simulated response as `last_response`): chosen values replace
   * them key by key, and a condition on such a key starts from its value (`contains` adds to it). Default: none.
   */
  readonly baseUpdates?: Readonly<Record<string, JsonValue>>;
  /**
   * The updates the stage's handler really makes from an aim (a dry-run tool node derives `tool.output`,
   * `tool_stdout` and `tool.exit_code` from its output and status): the path is checked against these. Default: the
   * aim's own updates.
   */
  readonly realize?: (aim: {
    readonly status: OutcomeStatus;
    readonly contextUpdates: Readonly<Record<string, JsonValue>>;
  }) => Readonly<Record<string, JsonValue>>;
}

/** The most assignments of context values tried for one status and label: the search stays bounded. */
const MAX_ASSIGNMENTS = 2048;
/** A key of the condition language that is no context key. */
const ROUTING_KEYS: ReadonlySet<string> = new Set(['outcome', 'preferred_label']);

/**
 * Finds what a stage returns to take `path` (spec §3.3 in reverse): tries the statuses, preferred labels and context
 * values the conditions of the nodes on the path compare with (`context.last_response contains PLAN_READY` gets a
 * response with `PLAN_READY` in it, `context.score >= 8` a score of 8, `preferred_label=scored` that label), fewest
 * changed values first, and returns the first that `selectEdge` routes along every edge of the path, with the
 * context as the engine will have it after the stage (`outcome`, `preferred_label`, `last_stage` included). Bounded:
 * at most 2,048 assignments of values per status and label.
 *
 * @returns the aim, or `undefined` when nothing the stage may return takes the path (another edge always wins, the
 *   condition can never hold, or it tests something the stage may not set).
 * @example
 * const aim = aimAtEdge({ graph, path: [graph.outgoing('review').find((e) => e.to === 'ship')!], context });
 * // { status: 'success', contextUpdates: { last_response: '... APPROVED' }, chosenKeys: ['last_response'] }
 */
export function aimAtEdge(options: AimAtEdgeOptions): EdgeAim | undefined {
  const { graph, path, context } = options;
  const first = path[0];
  if (first === undefined) return undefined;
  const baseUpdates = options.baseUpdates ?? {};
  const clauses = path.flatMap((edge) => graph.outgoing(edge.from).flatMap(clausesOf));
  const statuses = candidateStatuses(options, graph.outgoing(first.from));
  const labels = options.routingHints === false ? [undefined] : candidateLabels(first, clauses);
  const suggestedNextIds = options.routingHints === false ? undefined : [first.to];
  const assignments =
    options.setsContext === false
      ? [new Map<string, string>()]
      : candidateAssignments(clauses, context, baseUpdates);
  for (const status of statuses) {
    for (const preferredLabel of labels) {
      for (const assignment of assignments) {
        const contextUpdates: Record<string, JsonValue> = { ...baseUpdates };
        for (const [key, value] of assignment) contextUpdates[key] = value;
        const realized = options.realize?.({ status, contextUpdates }) ?? contextUpdates;
        const aim: EdgeAim = {
          status,
          ...(preferredLabel === undefined ? {} : { preferredLabel }),
          ...(suggestedNextIds === undefined ? {} : { suggestedNextIds }),
          contextUpdates,
          chosenKeys: [...assignment.keys()].sort(),
        };
        if (takesPath(graph, path, context, aim, realized)) return aim;
      }
    }
  }
  return undefined;
}

/**
 * Whether the walk takes `path` when the stage at its start returns `aim` and its handler puts `realized` into the
 * context (spec §3.2: updates, then `outcome`, `preferred_label` and `last_stage`; each conditional node after it
 * succeeds and sets only `outcome`).
 */
function takesPath(
  graph: Graph,
  path: readonly GraphEdge[],
  context: EdgeConditionContext,
  aim: EdgeAim,
  realized: Readonly<Record<string, JsonValue>>,
): boolean {
  const values = new Map<string, unknown>(Object.entries(realized));
  values.set('outcome', aim.status);
  values.set('last_stage', path[0]!.from);
  if (aim.preferredLabel !== undefined && aim.preferredLabel !== '')
    values.set('preferred_label', aim.preferredLabel);
  const overlay: EdgeConditionContext = {
    get: (key) => (values.has(key) ? values.get(key) : context.get(key)),
  };
  const outcome: Outcome = {
    status: aim.status,
    ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
    ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
  };
  for (const [index, edge] of path.entries()) {
    const hop: Outcome = index === 0 ? outcome : { status: 'success' };
    if (index > 0) values.set('outcome', 'success');
    let selected: GraphEdge | undefined;
    try {
      selected = selectEdge({
        edges: graph.outgoing(edge.from),
        outcome: hop,
        context: overlay,
        conditionalOnly: hop.status === 'fail',
      })?.edge;
    } catch (error) {
      // A condition that does not parse routes nowhere (lint reports it).
      if (ConditionSyntaxError.isInstance(error)) return false;
      throw error;
    }
    if (selected?.index !== edge.index) return false;
  }
  return true;
}

/** The statuses to try: the wanted ones, then (when allowed) those the node's conditions name. */
function candidateStatuses(options: AimAtEdgeOptions, edges: readonly GraphEdge[]): OutcomeStatus[] {
  const statuses = new Set<OutcomeStatus>(options.statuses ?? ['success']);
  if (options.statusesOfConditions === true) {
    for (const clause of edges.flatMap(clausesOf)) {
      if (clause.key.path !== 'outcome' || clause.kind !== 'comparison') continue;
      if (clause.operator !== '=' && clause.operator !== '!=') continue;
      const word = canonicalOutcome(clause.literal.value);
      if (word !== 'retry' && word !== '') statuses.add(word);
    }
    // `outcome!=success` holds for a failure: the statuses every stage may end with come last.
    statuses.add('partial_success');
    statuses.add('fail');
  }
  return [...statuses];
}

/** No label first, then the edge's own label, then the labels the conditions compare `preferred_label` with. */
function candidateLabels(edge: GraphEdge, clauses: readonly ConditionClause[]): (string | undefined)[] {
  const labels: (string | undefined)[] = [undefined];
  const add = (label: string) => {
    if (label.trim() !== '' && !labels.includes(label)) labels.push(label);
  };
  add(edge.label);
  for (const clause of clauses) {
    if (clause.kind === 'comparison' && clause.key.path === 'preferred_label') add(clause.literal.value);
  }
  return labels;
}

/**
 * The assignments of context values to try, fewest changed keys first: for each context key the conditions test,
 * "leave it", then values that make its clauses hold or fail. The product is cut to {@link MAX_ASSIGNMENTS}.
 */
function candidateAssignments(
  clauses: readonly ConditionClause[],
  context: EdgeConditionContext,
  baseUpdates: Readonly<Record<string, JsonValue>>,
): Map<string, string>[] {
  const byKey = new Map<string, ConditionClause[]>();
  for (const clause of clauses) {
    if (ROUTING_KEYS.has(clause.key.path)) continue;
    byKey.set(clause.key.path, [...(byKey.get(clause.key.path) ?? []), clause]);
  }
  const keys: { readonly key: string; readonly values: readonly string[] }[] = [];
  for (const [path, keyClauses] of byKey) {
    const key = writtenKey(path, context);
    const base = baseUpdates[key];
    const current =
      base === undefined
        ? resolveConditionKey(path, { outcome: '', context })
        : typeof base === 'string'
          ? base
          : JSON.stringify(base);
    const values = candidateValues(keyClauses, current).filter((value) => value !== current);
    if (values.length > 0) keys.push({ key, values });
  }
  // Keep the product bounded: fewer values per key until it fits.
  let perKey = Math.max(1, ...keys.map((entry) => entry.values.length));
  const product = () => keys.reduce((total, entry) => total * (Math.min(entry.values.length, perKey) + 1), 1);
  while (perKey > 1 && product() > MAX_ASSIGNMENTS) perKey--;
  let assignments: Map<string, string>[] = [new Map()];
  for (const { key, values } of keys) {
    const next: Map<string, string>[] = [];
    for (const assignment of assignments) {
      next.push(assignment);
      for (const value of values.slice(0, perKey)) {
        if (next.length >= MAX_ASSIGNMENTS) break;
        next.push(new Map([...assignment, [key, value]]));
      }
    }
    assignments = next;
  }
  return assignments.sort((left, right) => left.size - right.size);
}

/**
 * The key to write for a condition key: `context.x` falls back to `x` (spec §10.4), so `x` is written, unless the
 * context holds `context.x` itself, which would win.
 */
function writtenKey(path: string, context: EdgeConditionContext): string {
  if (!path.startsWith('context.')) return path;
  const value = context.get(path);
  return value === undefined || value === null ? path.slice('context.'.length) : path;
}

/** Values of one key that make its clauses hold or not: literals, `current` with a literal added or removed, numbers. */
function candidateValues(clauses: readonly ConditionClause[], current: string): string[] {
  const values: string[] = [];
  const add = (value: string) => {
    if (!values.includes(value)) values.push(value);
  };
  const contained: string[] = [];
  for (const clause of clauses) {
    if (clause.kind === 'truthy') {
      add('true');
      add('');
      continue;
    }
    const literal = clause.literal.value;
    switch (clause.operator) {
      case '=':
      case '!=':
        add(literal);
        add('');
        add(`not ${literal}`);
        break;
      case 'contains':
      case '!contains':
        contained.push(literal);
        add(joinText(current, literal));
        add(current.split(literal).join(''));
        break;
      case 'matches': {
        const sample = regexSample(literal);
        if (sample !== undefined) add(joinText(current, sample));
        add('');
        break;
      }
      default: {
        const number = Number(literal);
        if (Number.isFinite(number) && literal.trim() !== '') {
          for (const value of [number, number + 1, number - 1]) add(String(value));
        } else {
          add(literal);
        }
      }
    }
  }
  // Every literal a `contains` of the key names at once, for conditions that need two words.
  if (contained.length > 1) add(contained.reduce(joinText, current));
  return values;
}

/** `text` followed by `addition` on a line of its own (or `addition` alone when `text` is empty or holds it). */
function joinText(text: string, addition: string): string {
  if (text === '') return addition;
  if (text.includes(addition)) return text;
  return `${text}\n${addition}`;
}

/**
 * A string a simple regular expression matches (`^PLAN_(READY|DONE)$` gives `PLAN_READY`): anchors dropped, the first
 * alternative of a group taken, character classes replaced by a character they hold, quantifiers by one repetition.
 * `undefined` when the result does not match or the pattern is not valid.
 */
function regexSample(pattern: string): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch {
    return undefined;
  }
  const sample = pattern
    .replace(/^\^|\$$/g, '')
    .replace(/\\d/g, '1')
    .replace(/\\w/g, 'a')
    .replace(/\\s/g, ' ')
    .replace(/\[\^?([^\]\\])[^\]]*\]/g, '\\$1')
    .replace(/\((?:\?:)?([^()|]*)(?:\|[^()]*)?\)/g, '$1')
    .replace(/\{\d+(?:,\d*)?\}|[*+?]/g, '')
    .replace(/(?<!\\)\./g, 'a')
    .replace(/\\(.)/g, '$1')
    .split('|')[0]!;
  return regex.test(sample) ? sample : undefined;
}

const parsedConditions = new Map<string, ConditionAst | undefined>();

/** The clauses of an edge's condition (none for an unconditional edge or one that does not parse). */
function clausesOf(edge: GraphEdge): readonly ConditionClause[] {
  const text = edge.condition;
  if (text.trim() === '') return [];
  if (!parsedConditions.has(text)) {
    if (parsedConditions.size >= 1024) parsedConditions.clear();
    try {
      parsedConditions.set(text, parseCondition(text));
    } catch (error) {
      if (!ConditionSyntaxError.isInstance(error)) throw error;
      parsedConditions.set(text, undefined);
    }
  }
  return parsedConditions.get(text)?.clauses ?? [];
}
