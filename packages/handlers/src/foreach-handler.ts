/**
 * The `foreach` handler (README "Typed data"): runs the body between the node and its fan-in once per item of a list
 * in the context, each item on its own copy of the context, with its own stage directories and events.
 */
import {
  type Context,
  type DeclaredHandler,
  defineHandler,
  type HandlerRuntime,
  ITEM_CONTEXT_PREFIX,
  isBookkeepingKey,
  type JsonValue,
  type Outcome,
} from '@attractor/engine';
import {
  findJoinNode,
  foreachListKey,
  type Graph,
  type GraphNode,
  type ItemErrorPolicy,
  SPEC_HANDLER_DECLARATIONS,
} from '@attractor/graph';
import PQueue from 'p-queue';
import { DEFAULT_MAX_PARALLEL } from './parallel-handler.js';
import type { ParallelBranchResult } from './parallel-results.js';
import { type BranchRecord, runOneBranch } from './run-one-branch.js';

/** The item a foreach binds when the node has no `as`: `item.item`, `$item.item`. */
export const DEFAULT_ITEM_NAME = 'item';

/** One item's entry in the foreach's `collect` list (README "Typed data"). */
export interface ForeachItemResult {
  /** The item's position in the list, from 0. */
  readonly index: number;
  /** The item itself. */
  readonly item: JsonValue;
  /** Its body's last status (`success`, `partial_success`, a custom word), or `fail`. */
  readonly status: string;
  /** The body's full output (the last stage's `response.md` or `stdout.txt`), '' when none or kept as an artifact. */
  readonly output: string;
  /** The artifact id of an output larger than 100,000 characters. */
  readonly output_artifact?: string;
  /** Why the item failed; '' when it did not. */
  readonly failure_reason: string;
  /** The context keys the item's body wrote (bookkeeping keys such as `tool.*` and `last_response` left out). */
  readonly updates: Readonly<Record<string, JsonValue>>;
}

/** What the foreach keeps of a finished item in `items/<n>/result.json`, so that a resumed run does not run it again. */
interface ItemRecordFile {
  readonly index: number;
  readonly item: JsonValue;
  readonly verdict: 'success' | 'fail';
  readonly entry: ParallelBranchResult;
}

/** One item's outcome. */
interface ItemRecord {
  readonly index: number;
  readonly record: BranchRecord;
  readonly kept: boolean;
}

const RESULT_FILE = 'result.json';

/**
 * Creates the `foreach` handler (README "Typed data"), for nodes with `type="foreach"`.
 *
 * `over` names a list in the context (`state.files`, `input.files`, `files`); the node's one outgoing edge leads to
 * the body, which ends at the block's fan-in (`findJoinNode`: a `parallel.fan_in`, shape=tripleoctagon). For each
 * item the body is walked by `runtime.runBranch` on a copy of the context holding the item as `item.<as>` (`as`,
 * default `item`; `$item.<as>` in prompts and tool commands), its stages under `{stageDir}/items/{n}/{nodeId}/`,
 * its events with `items/{n}` in `branchPath`, its own worktree when the run has a workspace. `mode=parallel` (the
 * default) runs up to `max_parallel` (default 4) items at once, `mode=serial` one after another in list order.
 * `branch_timeout` limits one item.
 *
 * An item's writes stay in its own scope, except the graph's declared `state` fields, which the fan-in merges by
 * their rule in item order (its `parallel.results` are the items that succeeded, branch ids `0`, `1`, ...). With
 * `collect="<field>"` (a declared `append` field) one {@link ForeachItemResult} per item is appended to the field in
 * item order. `on_item_error`: `fail` (default) starts no further item after a failure and fails the node (it
 * routes as any failure; the finished items are kept), `collect` records the failed item in the `collect` list and
 * goes on, `skip` leaves it out. Every finished item is written to `items/{n}/result.json`: a run resumed after
 * a crash, or another attempt of the node, runs only the items that did not finish (a failed item is run again under
 * `on_item_error=fail`).
 *
 * Context: `foreach.node`, `foreach.item_count`, `foreach.success_count`, `foreach.failure_count`, and
 * `parallel.results` / `parallel.success_count` / `parallel.failure_count` / `parallel.outcome` for the fan-in.
 * Events: `foreach.started`, `foreach.item.started`, `foreach.item.completed`, `foreach.completed`.
 */
export function createForeachHandler(): DeclaredHandler {
  return defineHandler({
    type: 'foreach',
    ...SPEC_HANDLER_DECLARATIONS.foreach,
    async execute({ node, attributes, context, graph, runtime }) {
      const setup = foreachSetup({
        node,
        graph,
        context,
        over: attributes.over,
        collect: attributes.collect,
      });
      if (!setup.ok) return { status: 'fail', failureReason: setup.reason, retryable: false };
      const { items, bodyStart, join } = setup;
      const name = attributes.as ?? DEFAULT_ITEM_NAME;
      const mode = attributes.mode ?? 'parallel';
      const policy: ItemErrorPolicy = attributes.on_item_error ?? 'fail';
      const concurrency = mode === 'serial' ? 1 : (attributes.max_parallel ?? DEFAULT_MAX_PARALLEL);
      const startedMs = runtime.clock.now();
      const kept = await keptItems(runtime, items, policy);
      runtime.emit({
        type: 'foreach.started',
        nodeId: node.id,
        itemCount: items.length,
        mode,
        keptCount: kept.size,
      });
      const records: (ItemRecord | undefined)[] = new Array(items.length);
      let stopped = false;
      const neverAborted = new AbortController().signal;
      const runItem = async (index: number) => {
        const keptRecord = kept.get(index);
        if (keptRecord !== undefined) {
          records[index] = { index, record: keptRecord, kept: true };
          runtime.emit({
            type: 'foreach.item.completed',
            nodeId: node.id,
            index,
            item: itemPreview(items[index]!),
            durationMs: 0,
            success: keptRecord.verdict === 'success',
            status: keptRecord.entry.status,
            ...(keptRecord.entry.failure_reason === ''
              ? {}
              : { failureReason: keptRecord.entry.failure_reason }),
            kept: true,
          });
          return;
        }
        if (stopped || runtime.abortSignal.aborted) return;
        runtime.emit({
          type: 'foreach.item.started',
          nodeId: node.id,
          index,
          item: itemPreview(items[index]!),
        });
        const itemStartedMs = runtime.clock.now();
        const itemContext = context.clone();
        itemContext.set(`${ITEM_CONTEXT_PREFIX}${name}`, items[index]!);
        const record = await runOneBranch({
          startNodeId: bodyStart,
          branch: String(index),
          folder: 'items',
          context: itemContext,
          runtime,
          joinSignal: neverAborted,
          joinNodeId: join,
          ...(attributes.branch_timeout === undefined ? {} : { branchTimeoutMs: attributes.branch_timeout }),
        });
        records[index] = { index, record, kept: false };
        if (record.verdict !== 'cancelled') {
          const file: ItemRecordFile = {
            index,
            item: items[index]!,
            verdict: record.verdict,
            entry: record.entry,
          };
          await runtime.stage.writeFile(`items/${index}/${RESULT_FILE}`, JSON.stringify(file, null, 2));
        }
        if (record.verdict === 'fail' && policy === 'fail') stopped = true;
        runtime.emit({
          type: 'foreach.item.completed',
          nodeId: node.id,
          index,
          item: itemPreview(items[index]!),
          durationMs: runtime.clock.now() - itemStartedMs,
          success: record.verdict === 'success',
          status: record.entry.status,
          ...(record.entry.failure_reason === '' ? {} : { failureReason: record.entry.failure_reason }),
        });
      };
      const queue = new PQueue({ concurrency });
      await Promise.all(items.map((_, index) => queue.add(() => runItem(index))));
      const done = records.filter((record): record is ItemRecord => record !== undefined);
      const succeeded = done.filter((entry) => entry.record.verdict === 'success');
      const failed = done.filter((entry) => entry.record.verdict !== 'success');
      const notStartedCount = items.length - done.length;
      runtime.emit({
        type: 'foreach.completed',
        nodeId: node.id,
        durationMs: runtime.clock.now() - startedMs,
        successCount: succeeded.length,
        failureCount: failed.length,
        notStartedCount,
      });
      return foreachOutcome({
        node,
        graph,
        context,
        items,
        records: done,
        policy,
        join,
        notStartedCount,
        ...(attributes.collect === undefined ? {} : { collect: attributes.collect }),
        cancelled: runtime.abortSignal.aborted,
      });
    },
  });
}

type ForeachSetup =
  | {
      readonly ok: true;
      readonly items: readonly JsonValue[];
      readonly bodyStart: string;
      readonly join: string;
    }
  | { readonly ok: false; readonly reason: string };

/** Checks what the node needs before any item runs: a list to go over, one body edge, a join, a `collect` field. */
function foreachSetup(input: {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly context: Context;
  readonly over: string | undefined;
  readonly collect: string | undefined;
}): ForeachSetup {
  const { node, graph } = input;
  const over = input.over?.trim() ?? '';
  if (over === '') {
    return {
      ok: false,
      reason: `Foreach node "${node.id}" has no over; add over="state.<list field>" naming the list to run its body for`,
    };
  }
  const key = foreachListKey(over);
  const items = input.context.get(key);
  if (!Array.isArray(items)) {
    const held =
      items === undefined ? 'nothing (the key is not set)' : `${JSON.stringify(items).slice(0, 80)}`;
    return {
      ok: false,
      reason: `Foreach node "${node.id}": over="${over}" reads the context key "${key}", which holds ${held}; it must hold a list (a JSON array) when the node runs`,
    };
  }
  const edges = graph.outgoing(node.id);
  if (edges.length !== 1) {
    return {
      ok: false,
      reason: `Foreach node "${node.id}" has ${edges.length} outgoing edges; it needs exactly one, to the first node of its body`,
    };
  }
  const join = findJoinNode(graph, node.id);
  if (join === undefined) {
    return {
      ok: false,
      reason: `Foreach node "${node.id}" has no join: route the end of its body into a fan-in node (shape=tripleoctagon), where the items' results come together`,
    };
  }
  if (input.collect !== undefined && graph.settings.state[input.collect] !== 'append') {
    return {
      ok: false,
      reason: `Foreach node "${node.id}": collect="${input.collect}" is not a declared list field; declare it in the graph, e.g. state="${input.collect}: append"`,
    };
  }
  return { ok: true, items, bodyStart: edges[0]!.to, join };
}

/**
 * The items an earlier attempt or run leg finished, from `items/<n>/result.json` of this stage, or, when the run
 * resumes after this node failed (`runtime.resumedFrom`; the stage then starts a new visit), of the visit before,
 * archived in `visits/<visit - 1>/` (copied back, so that a crash now loses them neither): every success, and the
 * failures too unless `on_item_error=fail` (which runs a failed item again). A record whose item differs from the
 * list's item at that index (the list changed) is not kept.
 */
async function keptItems(
  runtime: HandlerRuntime,
  items: readonly JsonValue[],
  policy: ItemErrorPolicy,
): Promise<Map<number, BranchRecord>> {
  const kept = new Map<number, BranchRecord>();
  const previousVisit =
    runtime.resumedFrom !== undefined && runtime.visit > 1 ? `visits/${runtime.visit - 1}/` : undefined;
  for (let index = 0; index < items.length; index++) {
    const name = `items/${index}/${RESULT_FILE}`;
    let text = await runtime.stage.readText(name);
    if (text === undefined && previousVisit !== undefined) {
      text = await runtime.stage.readText(`${previousVisit}${name}`);
      if (text !== undefined) await runtime.stage.writeFile(name, text);
    }
    const file = text === undefined ? undefined : parseRecord(text);
    if (
      file === undefined ||
      file.index !== index ||
      JSON.stringify(file.item) !== JSON.stringify(items[index])
    ) {
      continue;
    }
    if (file.verdict === 'success' || (file.verdict === 'fail' && policy !== 'fail')) {
      kept.set(index, { verdict: file.verdict, entry: file.entry });
    }
  }
  return kept;
}

function parseRecord(text: string): ItemRecordFile | undefined {
  try {
    return JSON.parse(text) as ItemRecordFile;
  } catch {
    return undefined;
  }
}

/** The node's outcome once its items ended. */
function foreachOutcome(input: {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly context: Context;
  readonly items: readonly JsonValue[];
  readonly records: readonly ItemRecord[];
  readonly policy: ItemErrorPolicy;
  readonly join: string;
  readonly notStartedCount: number;
  readonly collect?: string;
  readonly cancelled: boolean;
}): Outcome {
  const { node, graph, records, policy } = input;
  const declared = graph.settings.state;
  const succeeded = records.filter((entry) => entry.record.verdict === 'success');
  const failed = records.filter((entry) => entry.record.verdict !== 'success');
  const counts: Record<string, JsonValue> = {
    'foreach.node': node.id,
    'foreach.item_count': input.items.length,
    'foreach.success_count': succeeded.length,
    'foreach.failure_count': failed.length,
  };
  const summary = `${succeeded.length} of ${input.items.length} items succeeded, ${failed.length} failed${input.notStartedCount === 0 ? '' : `, ${input.notStartedCount} not started`} (on_item_error=${policy})`;
  if (input.cancelled || (policy === 'fail' && (failed.length > 0 || input.notStartedCount > 0))) {
    // Nothing of the items reaches the context: the finished ones are kept in items/<n>/result.json for a resume.
    const failures = failed.map(
      ({ index, record }) => `item ${index}: ${record.entry.failure_reason || 'failed'}`,
    );
    return {
      status: 'fail',
      failureReason: `${summary}${failures.length === 0 ? '' : `: ${failures.join('; ')}`}`,
      contextUpdates: counts,
    };
  }
  // Only the declared state fields leave an item's scope, merged by rule at the fan-in in item order.
  const results = succeeded.map(({ record }) => ({
    ...record.entry,
    context_updates: Object.fromEntries(
      Object.entries(record.entry.context_updates).filter(([key]) => Object.hasOwn(declared, key)),
    ),
  }));
  const contextUpdates: Record<string, JsonValue> = {
    ...counts,
    'parallel.results': results as unknown as JsonValue,
    'parallel.success_count': succeeded.length,
    'parallel.failure_count': failed.length,
    'parallel.outcome': failed.length === 0 ? 'success' : 'partial_success',
  };
  if (input.collect !== undefined) {
    const base = input.context.get(input.collect);
    const collected = records
      .filter((entry) => entry.record.verdict === 'success' || policy === 'collect')
      .map((entry) => itemResult(entry, input.items));
    contextUpdates[input.collect] = [
      ...(Array.isArray(base) ? base : []),
      ...(collected as unknown as JsonValue[]),
    ];
  }
  return {
    status: failed.length === 0 ? 'success' : 'partial_success',
    notes: `${summary}; continuing at join "${input.join}"`,
    contextUpdates,
    continueAt: input.join,
  };
}

/** An item's entry in the `collect` list. */
function itemResult(entry: ItemRecord, items: readonly JsonValue[]): ForeachItemResult {
  const { entry: result } = entry.record;
  const updates: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(result.context_updates)) {
    if (!isBookkeepingKey(key)) updates[key] = value;
  }
  return {
    index: entry.index,
    item: items[entry.index]!,
    status: result.status,
    output: result.output || result.last_response,
    ...(result.output_artifact === undefined ? {} : { output_artifact: result.output_artifact }),
    failure_reason: result.failure_reason,
    updates,
  };
}

/** Longest item preview in the `foreach.item.*` events, in characters. */
const ITEM_PREVIEW_LENGTH = 200;

/** An item as the `foreach.item.*` events show it: a string as it is, anything else as JSON, cut short with `…`. */
function itemPreview(item: JsonValue): string {
  const text = typeof item === 'string' ? item : JSON.stringify(item);
  return text.length <= ITEM_PREVIEW_LENGTH ? text : `${text.slice(0, ITEM_PREVIEW_LENGTH - 1)}…`;
}
