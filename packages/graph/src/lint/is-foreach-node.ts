import type { GraphNode } from '../graph.js';
import { declaresAttribute } from '../spec-handler-declarations.js';
import type { LintContext } from './diagnostic.js';

/**
 * Whether `node` is a foreach node (README "Typed data"): its handler fans out and reads `over` (the built-in
 * `type="foreach"`, or a registered handler declaring both), as opposed to a parallel node fanning out to branches.
 */
export function isForeachNode(node: GraphNode, context: LintContext): boolean {
  return context.traitsOf(node).fansOut === true && declaresAttribute(context.declarationOf(node), 'over');
}
