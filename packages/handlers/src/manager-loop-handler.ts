/**
 * The `stack.manager_loop` handler (spec §4.11): runs a child pipeline and supervises it in observe / steer /
 * wait cycles.
 */
import { resolve } from 'node:path';
import type { ChildRunHandle, ChildRunStatus, JsonValue, Outcome } from '@attractor/engine';
import { type DeclaredHandler, defineHandler, evaluateRunCondition } from '@attractor/engine';
import { graphAttribute, nodeAttribute, SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import { loadChildGraph, managerChildDotfile, resolveChildPath } from './child-graph-file.js';
import { buildStagePrompt } from './codergen-handler.js';
import { writeSteeringMessage } from './stage-files.js';

/** Default delay between cycles (spec §4.11): 45 s, in milliseconds. */
export const DEFAULT_POLL_INTERVAL_MS = 45_000;
/** Default cycle limit (spec §4.11). */
export const DEFAULT_MAX_CYCLES = 1000;

/** The child's status as the manager reports it in `stack.child.status`. */
export type ChildStatusWord = 'running' | 'completed' | 'failed';

function statusWord(status: ChildRunStatus): ChildStatusWord {
  if (status.state === 'running') return 'running';
  return status.state === 'completed' ? 'completed' : 'failed';
}

/** The `stack.child.*` context values of one observation. */
export function observeChild(
  handle: ChildRunHandle,
  finished?: { status: string },
): Record<string, JsonValue> {
  const status = handle.status();
  return {
    'stack.child.status': statusWord(status),
    'stack.child.current_node': status.currentNodeId ?? '',
    'stack.child.completed_nodes': [...status.completedNodes],
    'stack.child.outcome':
      finished?.status ??
      (status.state === 'running' ? '' : status.state === 'completed' ? 'success' : 'fail'),
    'stack.child.last_status': status.lastStatus ?? '',
    'stack.child.failure_reason': status.failureReason ?? '',
    'stack.child.run_id': handle.runId,
    'stack.child.logs_root': handle.logsRoot,
  };
}

/**
 * Creates the `stack.manager_loop` handler (spec §4.11).
 *
 * The child DOT file is the node's `stack.child_dotfile`, else the graph's, resolved relative to the parent's
 * DOT file (`graph.filename`). It runs through `runtime.runChild` in its own run `child` kept in the stage (`store.child('{stagePath}/child')`; the file store's `{stageDir}/child`),
 * with the parent's interviewer, backend, handlers, clock and event sink, in `stack.child_workdir` (relative
 * to the run's working directory; default: the run's). Then, for at most `manager.max_cycles` (default 1000)
 * cycles, following `manager.actions` (default `observe,wait`):
 * - **observe** puts `stack.child.status` (`running|completed|failed`), `stack.child.current_node`,
 *   `stack.child.completed_nodes` (node ids in order), `stack.child.outcome` (`success|fail|cancelled` once it
 *   ended, else `''`), `stack.child.last_status`, `stack.child.run_id` and `stack.child.logs_root` in the context;
 * - **steer** writes the node's `prompt` (with `$goal`) to `{running child stage dir}/steer/<n>.md` once per
 *   child stage visit, where the child's codergen stage picks it up (`takeSteering()`);
 * - the child ending decides: completed with outcome success → SUCCESS, failed → FAIL with the child's reason;
 * - `manager.stop_condition` (condition language, spec §10, over the context with the observation) → SUCCESS,
 *   cancelling a still-running child;
 * - **wait** sleeps `manager.poll_interval` (default 45s) on the runtime clock, or until the child ends.
 * A cycle is one such round while the child runs. A child that ends during a cycle (also the last one, so
 * `manager.max_cycles=1` lets a child run to completion inside one cycle) decides the outcome; past the cycle limit
 * a still-running child is cancelled and the outcome is FAIL. Aborting the stage cancels the child. Amplifier's
 * `max_cycles`, `wait_ms` and `stop_condition_key` (read by the graph as `manager.*`) work the same way.
 */
export function createManagerLoopHandler(): DeclaredHandler {
  return defineHandler({
    type: 'stack.manager_loop',
    ...SPEC_HANDLER_DECLARATIONS['stack.manager_loop'],
    async execute({ node, context, graph, runtime }) {
      const childDotfile = managerChildDotfile(node, graph);
      if (childDotfile === '') {
        return {
          status: 'fail',
          failureReason: `Manager loop "${node.id}" has no stack.child_dotfile (on the node or the graph)`,
          retryable: false,
        };
      }
      if (nodeAttribute(node, 'stack.child_autostart') === false) {
        return {
          status: 'fail',
          failureReason: `Manager loop "${node.id}" has stack.child_autostart=false, but it can only supervise a child it starts; remove the attribute`,
          retryable: false,
        };
      }
      const path = resolveChildPath({
        childDotfile,
        parentFilename: graph.filename,
        workdir: runtime.workdir,
      });
      const loaded = await loadChildGraph(path, { parentFilename: graph.filename });
      if (!loaded.ok) return { status: 'fail', failureReason: loaded.reason, retryable: false };
      const childWorkdir =
        nodeAttribute(node, 'stack.child_workdir')?.trim() ||
        graphAttribute(graph, 'stack.child_workdir')?.trim() ||
        '';
      const pollIntervalMs = nodeAttribute(node, 'manager.poll_interval') ?? DEFAULT_POLL_INTERVAL_MS;
      const maxCycles = nodeAttribute(node, 'manager.max_cycles') ?? DEFAULT_MAX_CYCLES;
      const actions = new Set(nodeAttribute(node, 'manager.actions') ?? ['observe', 'wait']);
      const stopCondition = nodeAttribute(node, 'manager.stop_condition')?.trim() ?? '';
      const steerMessage = buildStagePrompt({ ...node, label: '' }, graph, context).trim();

      const handle = runtime.runChild({
        graph: loaded.graph,
        name: 'child',
        context: { 'stack.parent.run_id': runtime.runId, 'stack.parent.node_id': node.id },
        ...(childWorkdir === '' ? {} : { workdir: resolve(runtime.workdir, childWorkdir) }),
      });
      let finished: { status: string; failureReason?: string } | undefined;
      const settled = handle.result.then(
        (result) => {
          finished = {
            status: result.status,
            ...(result.failureReason === undefined ? {} : { failureReason: result.failureReason }),
          };
        },
        (error: unknown) => {
          finished = {
            status: 'fail',
            failureReason: error instanceof Error ? error.message : String(error),
          };
        },
      );
      let observed: Record<string, JsonValue> = {};
      const view = {
        get: (key: string) => (Object.hasOwn(observed, key) ? observed[key] : context.get(key)),
      };
      const steered = new Set<string>();
      const stopChild = async (reason: string) => {
        if (finished === undefined) handle.cancel(reason);
        await settled;
      };
      const withObservation = (outcome: Outcome): Outcome => ({
        ...outcome,
        contextUpdates: { ...observed, 'stack.child.cycles': cycle, ...(outcome.contextUpdates ?? {}) },
      });
      const childEnded = (ended: { status: string; failureReason?: string }): Outcome => {
        if (actions.has('observe')) observed = observeChild(handle, ended);
        if (ended.status === 'success') {
          return withObservation({ status: 'success', notes: `Child ${loaded.path} completed` });
        }
        return withObservation({
          status: 'fail',
          failureReason: `Child ${loaded.path} ${ended.status === 'cancelled' ? 'was cancelled' : 'failed'}: ${ended.failureReason ?? 'no reason given'}`,
        });
      };
      let cycle = 0;
      try {
        for (cycle = 1; cycle <= maxCycles; cycle++) {
          const status = handle.status();
          if (actions.has('observe')) observed = observeChild(handle, finished);
          if (
            actions.has('steer') &&
            steerMessage !== '' &&
            status.state === 'running' &&
            status.currentStagePath !== undefined
          ) {
            const key = `${status.currentStagePath}#${status.completedNodes.length}`;
            if (!steered.has(key)) {
              steered.add(key);
              const file = await writeSteeringMessage(
                handle.store,
                status.currentStagePath,
                cycle,
                steerMessage,
              );
              runtime.emit({
                type: 'stage.log',
                level: 'info',
                message: `steered child stage ${status.currentNodeId ?? ''}: ${file}`,
              });
            }
          }
          if (finished !== undefined) return childEnded(finished);
          if (stopCondition !== '' && evaluateRunCondition({ condition: stopCondition, context: view })) {
            await stopChild(`stop condition of ${node.id} satisfied`);
            return withObservation({
              status: 'success',
              notes: `Stop condition satisfied: ${stopCondition}`,
            });
          }
          if (actions.has('wait')) {
            await Promise.race([runtime.clock.sleep(pollIntervalMs, runtime.abortSignal), settled]);
          } else {
            await Promise.race([settled, Promise.resolve()]);
          }
        }
        cycle = maxCycles;
        // A child that ends during the last cycle's wait ended inside the cycle: its outcome decides, not the limit.
        const ended = finished as { status: string; failureReason?: string } | undefined;
        if (ended !== undefined) return childEnded(ended);
        await stopChild(`manager.max_cycles of ${node.id} exceeded`);
        if (actions.has('observe')) observed = observeChild(handle, finished);
        return withObservation({
          status: 'fail',
          failureReason: `Max cycles exceeded: the child was still running after manager.max_cycles=${maxCycles} cycles`,
        });
      } finally {
        if (finished === undefined) {
          handle.cancel('manager loop ended');
          await settled;
        }
      }
    },
  });
}
