import type { Interviewer } from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import type { RouteFinder } from '../route-finder.js';
import { autoApproveAnswer } from './auto-approve-interviewer.js';

/** Options of {@link createRouteInterviewer}. */
export interface RouteInterviewerOptions {
  /** The pipeline whose human gates ask (the `stage` of a question names its node). */
  readonly graph: Graph;
  /** Picks the choice (see `createRouteFinder`); the one the run's backend and handlers use. */
  readonly routes: RouteFinder;
}

/**
 * Creates an interviewer for simulated runs that answers each human gate (spec §4.6) with the choice whose edge the
 * route finder picks: the way to the exit, or with coverage (`attractor test --routes`) a choice not taken often
 * enough, so that every choice is tried across runs. Questions of nodes outside `graph` (a child pipeline's gates)
 * and questions that are not multiple choice get the answers of the auto-approve interviewer (spec §6.4).
 *
 * @example
 * const routes = createRouteFinder({ coverage: createRouteCoverage(graph) });
 * await runPipeline({ graph, registry, backend, logsRoot, interviewer: createRouteInterviewer({ graph, routes }) });
 */
export function createRouteInterviewer(options: RouteInterviewerOptions): Interviewer {
  const { graph, routes } = options;
  const visits = new Map<string, number>();
  return {
    ask: async (question) => {
      const node = graph.node(question.stage);
      if (node === undefined || question.type !== 'multiple_choice') return autoApproveAnswer(question);
      const visit = (visits.get(node.id) ?? 0) + 1;
      visits.set(node.id, visit);
      const edges = graph.outgoing(node.id);
      const chosen = routes.choose({ graph, node, edges, visit });
      const option = chosen === undefined ? undefined : question.options[edges.indexOf(chosen)];
      return option === undefined
        ? autoApproveAnswer(question)
        : { value: option.key, selectedOption: option };
    },
  };
}
