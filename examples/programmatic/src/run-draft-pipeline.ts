import { type Handler, type RunResult, runPipeline } from '@attractor/engine';
import { formatDiagnostic, prepareGraph } from '@attractor/graph';
import {
  createAutoApproveInterviewer,
  createDefaultRegistry,
  createSimulationBackend,
} from '@attractor/handlers';

// A custom handler: count the words of the previous stage's response and fail when there are too many.
const wordCount: Handler = {
  async execute({ node, context }) {
    const words = context.getString('last_response').split(/\s+/).filter(Boolean).length;
    const limit = Number(context.get('max_words') ?? 100);
    return words <= limit
      ? { status: 'success', contextUpdates: { [`${node.id}.words`]: words } }
      : { status: 'fail', failureReason: `${words} words, more than ${limit}` };
  },
};

const source = `digraph Draft {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  write [prompt="Write a two-line release note"]
  count [type="word_count", label="Count words"]
  start -> write -> count -> exit
}`;

export async function runDraftPipeline(logsRoot: string): Promise<RunResult> {
  const registry = createDefaultRegistry();
  registry.register('word_count', wordCount);

  const { graph, diagnostics } = prepareGraph(source, {
    filename: 'draft.dot',
    knownHandlerTypes: registry.types(),
  });
  for (const diagnostic of diagnostics) console.error(formatDiagnostic(diagnostic, source));
  if (graph === undefined || diagnostics.some((diagnostic) => diagnostic.severity === 'error'))
    throw new Error('invalid pipeline');

  return runPipeline({
    graph,
    registry,
    logsRoot,
    context: { max_words: 50 },
    backend: createSimulationBackend(), // or createAiSdkBackend({ apiKey }) from @attractor/backend-ai-sdk
    interviewer: createAutoApproveInterviewer(),
    onEvent: (event) => {
      if (event.type === 'stage.completed') console.log(`${event.nodeId}: ${event.status}`);
    },
  });
}
