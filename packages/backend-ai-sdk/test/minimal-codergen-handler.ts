/**
 * A minimal codergen handler after spec §4.5, for running pipelines in these tests until `@attractor/handlers`
 * lands on main: writes `prompt.md`, calls `runtime.backend`, writes `response.md` for a string result and
 * `status.json` for every outcome. Thrown backend errors propagate, so the engine applies their `retryable`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Handler, HandlerRegistry, type Outcome, outcomeToStatusFile } from '@attractor/engine';

async function writeStatus(stageDir: string, outcome: Outcome): Promise<void> {
  await writeFile(join(stageDir, 'status.json'), `${JSON.stringify(outcomeToStatusFile(outcome), null, 2)}\n`);
}

/** The codergen handler of spec §4.5 in its simplest form. */
export const minimalCodergenHandler: Handler = {
  async execute(node, context, graph, _logsRoot, runtime) {
    const prompt = (node.prompt === '' ? node.label : node.prompt).replaceAll('$goal', graph.settings.goal);
    await writeFile(join(runtime.stageDir, 'prompt.md'), prompt);
    if (runtime.backend === undefined) throw new Error('no backend');
    const result = await runtime.backend.run({
      node,
      graph,
      prompt,
      context,
      fidelity: runtime.fidelity.mode,
      threadKey: runtime.fidelity.threadKey,
      preamble: runtime.fidelity.preamble,
      abortSignal: runtime.abortSignal,
      stageDir: runtime.stageDir,
      workdir: runtime.workdir,
      emit: (event) => runtime.emit(event),
      takeSteering: async () => [],
    });
    if (typeof result !== 'string') {
      await writeStatus(runtime.stageDir, result);
      return result;
    }
    await writeFile(join(runtime.stageDir, 'response.md'), result);
    const outcome: Outcome = {
      status: 'success',
      notes: `Stage completed: ${node.id}`,
      contextUpdates: { last_stage: node.id, last_response: result.slice(0, 200) },
    };
    await writeStatus(runtime.stageDir, outcome);
    return outcome;
  },
};

const passThrough: Handler = { execute: async () => ({ status: 'success' }) };

/** A registry with pass-through start/exit handlers and the minimal codergen handler as the default. */
export function createMinimalRegistry(): HandlerRegistry {
  return new HandlerRegistry({
    handlers: { start: passThrough, exit: passThrough },
    defaultHandler: minimalCodergenHandler,
  });
}
