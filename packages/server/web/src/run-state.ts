/**
 * The state of one run view, folded from the run's events (the engine's `PipelineEvent` union, imported, never
 * copied): each node's status (stages inside parallel branches included), every attempt of every visit with its
 * streamed text, tool calls, logs, usage and live tool output, the timeline, and which gate waits. Mutable and
 * versioned so a 500-node run updates without copying: the view re-renders when `version` changes.
 */
import type { PipelineEvent } from '@attractor/engine';
import { type ChildRunPath, relateToChildRun } from '../../src/child-run-path.js';

/** What a node shows in the graph. */
export type NodeStatus =
  | 'pending'
  | 'running'
  | 'waiting'
  | 'success'
  | 'partial_success'
  | 'retry'
  | 'fail'
  | 'skipped'
  /** Stopped by a cancel before it finished: not run to an outcome (a resume runs it again). */
  | 'cancelled';

/** One tool call of an agent. */
export interface ToolCallView {
  readonly callId: string;
  readonly toolName: string;
  readonly arguments: unknown;
  output?: string;
  isError?: boolean;
  durationMs?: number;
}

/** One attempt of one visit of a node (in the top-level walk or a parallel branch). */
export interface AttemptView {
  /** Unique within the run: branch path, node, visit, attempt. */
  readonly key: string;
  readonly nodeId: string;
  readonly branchPath: readonly string[];
  readonly visit: number;
  readonly attempt: number;
  /**
   * How many times a resume ran this same attempt again (after a cancel, a crash or a suspended gate, the resumed run
   * starts the stage over with the same visit and attempt numbers); 0 for the first run of it.
   */
  readonly resumed: number;
  readonly handlerType: string;
  /** Milliseconds since the epoch. */
  readonly startedAtMs: number;
  endedAtMs?: number;
  /**
   * `running` until it ends; the outcome status, `failed` for an attempt that will be retried, `cancelled`, or
   * `suspended` for a gate's attempt stopped by `pipeline.suspended` (asked again when the run resumes).
   */
  status: 'running' | 'failed' | 'cancelled' | 'suspended' | string;
  durationMs?: number;
  error?: string;
  notes?: string;
  /** The model's text so far (streamed deltas appended). */
  text: string;
  textDeltas: number;
  readonly toolCalls: ToolCallView[];
  readonly logs: { level: string; message: string }[];
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  /** Tool output streamed while the command runs (`stage.custom` events named `tool.stdout` / `tool.stderr`). */
  stdout: string;
  stderr: string;
}

/** A child pipeline of a node (its events carry `branchPath: [..., 'child:<node>']` and the child's run id). */
export interface ChildRunView {
  readonly runId: string;
  /** Its path under the top run's directory (`checks/child`), which opens its own run view. */
  readonly path: string;
  /** The latest status of each of the child's stages, in the order they first started. */
  readonly stages: Map<string, string>;
  ended?: 'success' | 'fail' | 'cancelled';
}

/** One branch of a parallel node, from `parallel.branch.started` / `parallel.branch.completed`. */
export interface BranchView {
  /** The branch path of the stages inside it (`['a']`, or `['a', 'x']` for branch `x` of a block inside `a`). */
  readonly path: readonly string[];
  readonly branch: string;
  /** Position in the fan-out's edge order, from 0. */
  readonly index: number;
  /** The branch's outcome once it ended; `running` before. */
  status: string;
}

/** One item of a `foreach` node, from the `foreach.item.*` events. */
export interface ItemView {
  /** Position in the list, from 0. */
  readonly index: number;
  /** The branch path of its stages (`['items/3']`, or `['a', 'items/3']` inside parallel branch `a`). */
  readonly path: readonly string[];
  /** The item, short (a string as it is, else JSON); unknown until it starts or is kept. */
  item?: string;
  /** `pending`, `running`, the body's last status (`success`, `fail`, ...), `cancelled`, or `skipped` (never started). */
  status: string;
  /** Milliseconds since the epoch. */
  startedAtMs?: number;
  durationMs?: number;
  failureReason?: string;
  /** Finished in an earlier attempt or run leg and not run again. */
  kept: boolean;
}

/** The latest run of a `foreach` node, from `foreach.started` on. */
export interface ForeachView {
  readonly nodeId: string;
  readonly itemCount: number;
  readonly items: ItemView[];
  /** True once `foreach.completed` came. */
  completed: boolean;
}

/** A waiting human question, from `interview.started`. */
export interface GateView {
  readonly questionId: string;
  readonly stage: string;
  readonly askedAtMs: number;
}

/** The folded state of a run view. */
export interface RunState {
  /** The id of the run whose events are this view's own: the top run's, or a child run's (`child`). */
  readonly runId: string;
  /** For the view of a child run: where it is under the top run (its events' branch path prefix and run id). */
  readonly child?: ChildRunPath;
  /** For the view of one parallel branch: its branch path; only the stages inside it count. */
  readonly branch?: readonly string[];
  version: number;
  lastSeq: number;
  startedAtMs?: number;
  endedAtMs?: number;
  ended?: 'success' | 'fail' | 'cancelled';
  endReason?: string;
  /** Status per node id (all walks of this run's graph). */
  readonly nodeStatus: Map<string, NodeStatus>;
  /** Nodes running now (more than one inside parallel blocks). */
  readonly running: Set<string>;
  readonly attempts: AttemptView[];
  readonly attemptsByNode: Map<string, AttemptView[]>;
  /** The open attempt per `branchPath|nodeId`. */
  readonly open: Map<string, AttemptView>;
  /** The parallel node of each branch, by branch path (`a` or `a/inner`). */
  readonly fanOfBranch: Map<string, string>;
  /** The branches of each parallel node (every run of it), by node id, in start order. */
  readonly branchesOfFan: Map<string, BranchView[]>;
  /** The latest run of each `foreach` node, by node id; its items' branch paths are in `fanOfBranch` too. */
  readonly foreachOf: Map<string, ForeachView>;
  readonly gates: Map<string, GateView>;
  /** Child pipelines (sub-pipelines, manager loops) seen in the stream, by the node of this run that started them. */
  readonly children: Map<string, ChildRunView>;
  /** Event types this UI does not know yet (shown in the event log, ignored otherwise). */
  readonly unknownTypes: Set<string>;
  /** Every event, for the event log (the run's own and its children's). */
  readonly events: PipelineEvent[];
}

/**
 * A fresh state for run `runId`, or for its child run `child` (see `parseChildRunPath`); with `branch`, only the
 * stages inside that parallel branch (branch path, outermost first) count.
 */
export function createRunState(runId: string, child?: ChildRunPath, branch?: readonly string[]): RunState {
  return {
    runId: child?.runId ?? runId,
    ...(child === undefined ? {} : { child }),
    ...(branch === undefined || branch.length === 0 ? {} : { branch }),
    version: 0,
    lastSeq: 0,
    nodeStatus: new Map(),
    running: new Set(),
    attempts: [],
    attemptsByNode: new Map(),
    open: new Map(),
    fanOfBranch: new Map(),
    branchesOfFan: new Map(),
    foreachOf: new Map(),
    gates: new Map(),
    children: new Map(),
    unknownTypes: new Set(),
    events: [],
  };
}

const openKey = (branchPath: readonly string[] | undefined, nodeId: string) =>
  `${(branchPath ?? []).join('/')}|${nodeId}`;

/**
 * The branch path of a `?branch=` parameter: `a/x` is `['a', 'x']`; a foreach item's part keeps its slash
 * (`each/items/3` is never written: `items/3` is `['items/3']`, `a/items/3` is `['a', 'items/3']`).
 */
export function parseBranchPath(param: string): string[] {
  const parts: string[] = [];
  for (const part of param.split('/')) {
    const last = parts.at(-1);
    if (last === 'items' && /^[0-9]+$/.test(part)) parts[parts.length - 1] = `items/${part}`;
    else parts.push(part);
  }
  return parts;
}

/** A branch path for people: parallel branch ids as they are, a foreach item's `items/3` as `item 3`. */
export function branchPathLabel(branchPath: readonly string[], separator = ' › '): string {
  return branchPath
    .map((part) => (part.startsWith('items/') ? `item ${part.slice('items/'.length)}` : part))
    .join(separator);
}

/**
 * The `foreach` nodes (with the item) whose items ran stages of `nodeId`: the foreach node itself and the nodes of
 * its body. Innermost first for nested ones, each once.
 */
export function foreachesOfNode(state: RunState, nodeId: string): ForeachView[] {
  const found = new Map<string, ForeachView>();
  const own = state.foreachOf.get(nodeId);
  if (own !== undefined) found.set(nodeId, own);
  for (const attempt of state.attemptsByNode.get(nodeId) ?? []) {
    for (let depth = attempt.branchPath.length - 1; depth >= 0; depth--) {
      if (!attempt.branchPath[depth]!.startsWith('items/')) continue;
      const fan = state.fanOfBranch.get(attempt.branchPath.slice(0, depth + 1).join('/'));
      const view = fan === undefined ? undefined : state.foreachOf.get(fan);
      if (view !== undefined && !found.has(view.nodeId)) found.set(view.nodeId, view);
    }
  }
  return [...found.values()];
}

/** The stage directory of an attempt relative to the run directory (`fan/branches/a/check` inside a branch). */
export function stageDirectoryOf(
  state: RunState,
  attempt: Pick<AttemptView, 'branchPath' | 'nodeId'>,
): string {
  const parts: string[] = [];
  for (let depth = 0; depth < attempt.branchPath.length; depth++) {
    const key = attempt.branchPath.slice(0, depth + 1).join('/');
    const fan = state.fanOfBranch.get(key);
    if (fan === undefined) return attempt.nodeId;
    const part = attempt.branchPath[depth]!;
    // A foreach item's part is `items/<n>` already.
    if (part.startsWith('items/')) parts.push(fan, part);
    else parts.push(fan, 'branches', part);
  }
  parts.push(attempt.nodeId);
  return parts.join('/');
}

/** Applies one event to `state` (mutates it and bumps `version`). Unknown event types are recorded and ignored. */
export function applyEvent(state: RunState, original: PipelineEvent): void {
  state.version++;
  state.events.push(original);
  const seen = relativeEvent(state, original);
  if (seen === undefined) return;
  const event = seen.event;
  if (state.branch !== undefined && !inBranch(state.branch, event)) return;
  if (!seen.own) {
    applyChildEvent(state, event);
    return;
  }
  if (event.seq > state.lastSeq) state.lastSeq = event.seq;
  const atMs = Date.parse(event.timestamp);
  switch (event.type) {
    case 'pipeline.started':
      if (event.branchPath === undefined) {
        state.startedAtMs ??= atMs;
        delete state.ended;
        delete state.endedAtMs;
      }
      return;
    case 'pipeline.completed':
    case 'pipeline.failed':
    case 'pipeline.cancelled':
      if (event.branchPath !== undefined) return;
      state.ended =
        event.type === 'pipeline.completed'
          ? 'success'
          : event.type === 'pipeline.failed'
            ? 'fail'
            : 'cancelled';
      state.endReason =
        event.type === 'pipeline.failed'
          ? event.error
          : event.type === 'pipeline.cancelled'
            ? event.reason
            : '';
      state.endedAtMs = atMs;
      for (const attempt of state.open.values()) {
        attempt.status = 'cancelled';
        attempt.endedAtMs = atMs;
        const shown = state.nodeStatus.get(attempt.nodeId);
        // The attempt never finished: the node shows as cancelled, not as an outcome (a resume runs it again).
        if (shown === 'running' || shown === 'waiting') state.nodeStatus.set(attempt.nodeId, 'cancelled');
      }
      state.open.clear();
      state.running.clear();
      state.gates.clear();
      // Items that never finished are run again by a resume.
      for (const view of state.foreachOf.values())
        for (const item of view.items) if (item.status === 'running') item.status = 'cancelled';
      return;
    case 'stage.started': {
      const key = `${openKey(event.branchPath, event.nodeId)}|${event.visit}|${event.attempt}`;
      // The same attempt started again: a resume runs the stage it stopped in over, with the same numbers.
      const branch = (event.branchPath ?? []).join('/');
      const resumed =
        state.attemptsByNode
          .get(event.nodeId)
          ?.filter(
            (earlier) =>
              earlier.visit === event.visit &&
              earlier.attempt === event.attempt &&
              earlier.branchPath.join('/') === branch,
          ).length ?? 0;
      const attempt: AttemptView = {
        key: resumed === 0 ? key : `${key}|resumed-${resumed}`,
        nodeId: event.nodeId,
        branchPath: event.branchPath ?? [],
        visit: event.visit,
        attempt: event.attempt,
        resumed,
        handlerType: event.handlerType,
        startedAtMs: atMs,
        status: 'running',
        text: '',
        textDeltas: 0,
        toolCalls: [],
        logs: [],
        inputTokens: 0,
        outputTokens: 0,
        stdout: '',
        stderr: '',
      };
      state.attempts.push(attempt);
      const list = state.attemptsByNode.get(event.nodeId) ?? [];
      list.push(attempt);
      state.attemptsByNode.set(event.nodeId, list);
      state.open.set(openKey(event.branchPath, event.nodeId), attempt);
      state.nodeStatus.set(event.nodeId, 'running');
      state.running.add(event.nodeId);
      return;
    }
    case 'stage.completed':
    case 'stage.failed': {
      const key = openKey(event.branchPath, event.nodeId);
      const attempt = state.open.get(key);
      const completed = event.type === 'stage.completed';
      if (attempt !== undefined) {
        attempt.endedAtMs = atMs;
        // The stage.completed of a retried stage counts the whole visit (every attempt and the back-off between):
        // a later attempt's own duration is its own start to end.
        attempt.durationMs =
          completed && attempt.attempt > 1 ? Math.max(0, atMs - attempt.startedAtMs) : event.durationMs;
        if (completed) {
          attempt.status = event.status;
          if (event.failureReason !== undefined) attempt.error = event.failureReason;
          if (event.notes !== undefined) attempt.notes = event.notes;
        } else {
          attempt.status = 'failed';
          attempt.error = event.error;
        }
        // A failed attempt is followed by stage.completed for the same attempt when it is not retried.
        if (completed || event.willRetry) state.open.delete(key);
      }
      if (completed) {
        state.nodeStatus.set(event.nodeId, event.status as NodeStatus);
        state.running.delete(event.nodeId);
      } else if (event.willRetry) state.nodeStatus.set(event.nodeId, 'retry');
      return;
    }
    case 'stage.retrying':
      return;
    case 'parallel.branch.started': {
      const path = [...(event.branchPath ?? []), event.branch];
      state.fanOfBranch.set(path.join('/'), event.nodeId);
      const list = state.branchesOfFan.get(event.nodeId) ?? [];
      list.push({ path, branch: event.branch, index: event.index, status: 'running' });
      state.branchesOfFan.set(event.nodeId, list);
      return;
    }
    case 'parallel.branch.completed': {
      const key = [...(event.branchPath ?? []), event.branch].join('/');
      const view = state.branchesOfFan
        .get(event.nodeId)
        ?.findLast((candidate) => candidate.path.join('/') === key);
      if (view !== undefined) view.status = event.status;
      return;
    }
    case 'pipeline.suspended':
      // A worker stopped the run at the gate to wait for the answer without holding a process: not an end. The gate
      // keeps waiting (an answer or its deadline queues the run again); other open attempts were stopped with it.
      if (event.branchPath !== undefined) return;
      state.gates.set(event.question.id, {
        questionId: event.question.id,
        stage: event.stage,
        askedAtMs: state.gates.get(event.question.id)?.askedAtMs ?? atMs,
      });
      for (const attempt of state.open.values()) {
        const atGate = attempt.nodeId === event.stage && attempt.branchPath.length === 0;
        // The gate's attempt is asked again when the run resumes (a new attempt view then).
        attempt.status = atGate ? 'suspended' : 'cancelled';
        attempt.endedAtMs = atMs;
        if (!atGate && state.nodeStatus.get(attempt.nodeId) === 'running')
          state.nodeStatus.set(attempt.nodeId, 'pending');
      }
      state.open.clear();
      state.running.clear();
      state.nodeStatus.set(event.stage, 'waiting');
      return;
    case 'foreach.started': {
      // A new run of the node (another visit, attempt or run leg): items start over; kept ones come again as kept.
      const earlier = state.foreachOf.get(event.nodeId);
      const items: ItemView[] = [];
      for (let index = 0; index < event.itemCount; index++) {
        const before = earlier?.items[index];
        items.push({
          index,
          path: [...(event.branchPath ?? []), `items/${index}`],
          status: 'pending',
          kept: false,
          ...(before?.item === undefined ? {} : { item: before.item }),
          // A kept item's duration is the one it took when it ran.
          ...(before?.durationMs === undefined ? {} : { durationMs: before.durationMs }),
        });
      }
      state.foreachOf.set(event.nodeId, {
        nodeId: event.nodeId,
        itemCount: event.itemCount,
        items,
        completed: false,
      });
      for (const item of items) state.fanOfBranch.set(item.path.join('/'), event.nodeId);
      return;
    }
    case 'foreach.item.started': {
      const item = state.foreachOf.get(event.nodeId)?.items[event.index];
      if (item === undefined) return;
      item.status = 'running';
      item.startedAtMs = atMs;
      delete item.durationMs;
      delete item.failureReason;
      if (event.item !== undefined) item.item = event.item;
      return;
    }
    case 'foreach.item.completed': {
      const item = state.foreachOf.get(event.nodeId)?.items[event.index];
      if (item === undefined) return;
      item.status = event.status;
      item.kept = event.kept === true;
      if (!item.kept || item.durationMs === undefined) item.durationMs = event.durationMs;
      if (event.failureReason === undefined) delete item.failureReason;
      else item.failureReason = event.failureReason;
      if (event.item !== undefined) item.item = event.item;
      return;
    }
    case 'foreach.completed': {
      const view = state.foreachOf.get(event.nodeId);
      if (view === undefined) return;
      view.completed = true;
      // Items never started: a failure under on_item_error=fail stopped the rest.
      for (const item of view.items) if (item.status === 'pending') item.status = 'skipped';
      return;
    }
    case 'parallel.started':
    case 'parallel.completed':
    case 'checkpoint.saved':
    case 'pipeline.restarted':
      return;
    case 'interview.started':
      state.gates.set(event.question.id, {
        questionId: event.question.id,
        stage: event.stage,
        askedAtMs: atMs,
      });
      state.nodeStatus.set(event.stage, 'waiting');
      return;
    case 'interview.completed':
    case 'interview.timeout':
      state.gates.delete(event.question.id);
      if (state.nodeStatus.get(event.question.stage) === 'waiting')
        state.nodeStatus.set(event.question.stage, 'running');
      return;
    case 'agent.text': {
      const attempt = state.open.get(openKey(event.branchPath, event.nodeId));
      if (attempt === undefined) return;
      if (event.delta) {
        attempt.text += event.text;
        attempt.textDeltas++;
      } else if (attempt.textDeltas === 0) {
        // A whole message; after streamed deltas it repeats what is already shown.
        attempt.text += attempt.text === '' ? event.text : `\n\n${event.text}`;
      }
      return;
    }
    case 'agent.tool_call.started': {
      const attempt = state.open.get(openKey(event.branchPath, event.nodeId));
      attempt?.toolCalls.push({ callId: event.callId, toolName: event.toolName, arguments: event.arguments });
      return;
    }
    case 'agent.tool_call.completed': {
      const attempt = state.open.get(openKey(event.branchPath, event.nodeId));
      const call = attempt?.toolCalls.find((candidate) => candidate.callId === event.callId);
      if (call !== undefined) {
        call.output = event.output;
        call.isError = event.isError;
        call.durationMs = event.durationMs;
      }
      return;
    }
    case 'agent.usage': {
      const attempt = state.open.get(openKey(event.branchPath, event.nodeId));
      if (attempt === undefined) return;
      attempt.inputTokens += event.inputTokens;
      attempt.outputTokens += event.outputTokens;
      const cost = (event as { readonly costUsd?: unknown }).costUsd;
      if (typeof cost === 'number') attempt.costUsd = (attempt.costUsd ?? 0) + cost;
      return;
    }
    case 'stage.log': {
      state.open.get(openKey(event.branchPath, event.nodeId))?.logs.push({
        level: event.level,
        message: event.message,
      });
      return;
    }
    case 'stage.custom': {
      const attempt = state.open.get(openKey(event.branchPath, event.nodeId));
      const data = event.data as { readonly text?: unknown } | null;
      if (attempt === undefined || typeof data?.text !== 'string') return;
      if (event.name === 'tool.stdout') attempt.stdout += data.text;
      else if (event.name === 'tool.stderr') attempt.stderr += data.text;
      return;
    }
    default: {
      // An event type newer than this UI: keep it in the log, change nothing else.
      state.unknownTypes.add((event as { readonly type: string }).type);
      return;
    }
  }
}

/**
 * Whether an event counts in the view of parallel branch `branch`: the run's start and end, the branch bookkeeping
 * of parallel nodes (so stage directories resolve), and whatever happens inside the branch.
 */
function inBranch(branch: readonly string[], event: PipelineEvent): boolean {
  const path = event.branchPath ?? [];
  if (event.type.startsWith('parallel.branch.') || event.type.startsWith('foreach.')) return true;
  if (path.length === 0 && event.type.startsWith('pipeline.')) return true;
  return branch.every((part, index) => path[index] === part);
}

/**
 * The event as this view sees it: a child run's view sees its events' branch paths relative to the child (they carry
 * the parent's branch path first). `own`: the view's run's own event; else one of a child pipeline's, to fold into
 * `children`. Undefined for an event that is not under this view's run.
 */
function relativeEvent(
  state: RunState,
  event: PipelineEvent,
): { readonly event: PipelineEvent; readonly own: boolean } | undefined {
  if (state.child === undefined) return { event, own: event.runId === state.runId };
  const relation = relateToChildRun(event, state.child);
  if (relation === undefined) return undefined;
  const { branchPath: _full, ...rest } = event;
  const relative = (
    relation.relativePath.length === 0 ? rest : { ...rest, branchPath: relation.relativePath }
  ) as PipelineEvent;
  return { event: relative, own: relation.kind === 'own' };
}

/**
 * Folds an event of a child pipeline (its branch path relative to this view) into the child's view under the node
 * of this run that started it; a question the child asks waits in this view too.
 */
function applyChildEvent(state: RunState, event: PipelineEvent): void {
  const path = event.branchPath ?? [];
  const at = path.findIndex((part) => part.startsWith('child:'));
  if (at === -1) return;
  if (event.type === 'interview.started')
    state.gates.set(event.question.id, {
      questionId: event.question.id,
      stage: event.stage,
      askedAtMs: Date.parse(event.timestamp),
    });
  else if (event.type === 'interview.completed' || event.type === 'interview.timeout')
    state.gates.delete(event.question.id);
  // Only the child's own walk (not its branches or grandchildren) is summarised here.
  if (path.length !== at + 1) return;
  const parentNode = path[at]!.slice('child:'.length);
  let child = state.children.get(parentNode);
  if (child === undefined || child.runId !== event.runId || event.type === 'pipeline.started') {
    const stageDir = stageDirectoryOf(state, { branchPath: path.slice(0, at), nodeId: parentNode });
    child = {
      runId: event.runId,
      path: `${state.child === undefined ? '' : `${state.child.path}/`}${stageDir}/${event.runId}`,
      stages: new Map(),
    };
    state.children.set(parentNode, child);
  }
  if (event.type === 'stage.started') child.stages.set(event.nodeId, 'running');
  else if (event.type === 'stage.completed') child.stages.set(event.nodeId, event.status);
  else if (event.type === 'pipeline.completed') child.ended = 'success';
  else if (event.type === 'pipeline.failed') child.ended = 'fail';
  else if (event.type === 'pipeline.cancelled') child.ended = 'cancelled';
}
