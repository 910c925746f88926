/** The built-in lint rules, in the order `validate` runs them: spec §7.2's table first, then ours. */
import type { LintRule } from './diagnostic.js';
import { attributeOverriddenRule } from './rules/attribute-overridden.js';
import { attributeTypeRule } from './rules/attribute-type.js';
import { conditionCoverageRule } from './rules/condition-coverage.js';
import { conditionKeyRule } from './rules/condition-key.js';
import { conditionSyntaxRule } from './rules/condition-syntax.js';
import { contextKeyUnsetRule } from './rules/context-key-unset.js';
import { deadEdgeRule } from './rules/dead-edge.js';
import { deadEndRule } from './rules/dead-end.js';
import { dialectAliasRule } from './rules/dialect-alias.js';
import { duplicateEdgeRule } from './rules/duplicate-edge.js';
import { durationUnitRule } from './rules/duration-unit.js';
import { edgeTargetExistsRule } from './rules/edge-target-exists.js';
import { exitNoOutgoingRule } from './rules/exit-no-outgoing.js';
import { exitUnreachableRule } from './rules/exit-unreachable.js';
import { fanInModeRule } from './rules/fan-in-mode.js';
import { fanInWithoutParallelRule } from './rules/fan-in-without-parallel.js';
import { fidelityValidRule } from './rules/fidelity-valid.js';
import { foreachNodeRule } from './rules/foreach-node.js';
import { goalGateBypassRule } from './rules/goal-gate-bypass.js';
import { goalGateHasRetryRule } from './rules/goal-gate-has-retry.js';
import { goalVariableUndefinedRule } from './rules/goal-variable-undefined.js';
import { humanDefaultChoiceRule } from './rules/human-default-choice.js';
import { humanGateAcceleratorsRule } from './rules/human-gate-accelerators.js';
import { humanGateEdgesRule } from './rules/human-gate-edges.js';
import { humanGateLabelsRule } from './rules/human-gate-labels.js';
import { inertAttributeRule } from './rules/inert-attribute.js';
import { inputVariableRule } from './rules/input-variable.js';
import { inputsDeclarationRule } from './rules/inputs-declaration.js';
import { joinMergeRule } from './rules/join-merge.js';
import { joinPolicyOptionsRule } from './rules/join-policy-options.js';
import { loopRestartStartRule } from './rules/loop-restart-start.js';
import { managerChildDotfileRule } from './rules/manager-child-dotfile.js';
import { mcpServerKnownRule } from './rules/mcp-server-known.js';
import { outMapConflictRule } from './rules/out-map-conflict.js';
import { outMapFieldRule } from './rules/out-map-field.js';
import { outMapStateRule } from './rules/out-map-state.js';
import { outcomeCoverageRule } from './rules/outcome-coverage.js';
import { outputSchemaRule } from './rules/output-schema.js';
import { outputUnwrittenRule } from './rules/output-unwritten.js';
import { parallelFanInRule } from './rules/parallel-fan-in.js';
import { promptOnLlmNodesRule } from './rules/prompt-on-llm-nodes.js';
import { promptVariableRule } from './rules/prompt-variable.js';
import { reachabilityRule } from './rules/reachability.js';
import { retryTargetExistsRule } from './rules/retry-target-exists.js';
import { shapeMappingRule } from './rules/shape-mapping.js';
import { startNoIncomingRule } from './rules/start-no-incoming.js';
import { startNodeRule } from './rules/start-node.js';
import { startPromptRule } from './rules/start-prompt.js';
import { stylesheetPropertyRule } from './rules/stylesheet-property.js';
import { stylesheetSelectorUnmatchedRule } from './rules/stylesheet-selector-unmatched.js';
import { stylesheetSyntaxRule } from './rules/stylesheet-syntax.js';
import { subgraphInputRule } from './rules/subgraph-input.js';
import { subgraphRefRule } from './rules/subgraph-ref.js';
import { terminalNodeRule } from './rules/terminal-node.js';
import { toolCommandRequiredRule } from './rules/tool-command-required.js';
import { typeKnownRule } from './rules/type-known.js';
import { unknownAttributeRule } from './rules/unknown-attribute.js';

/**
 * Every built-in rule (spec §7.2 plus the rules of issue 3 and docs/architecture.md "Decisions"), in run
 * order. Each rule's `name` is its stable id; `validate` appends custom rules after these (spec §7.4).
 */
export const BUILT_IN_RULES: readonly LintRule[] = [
  // Spec §7.2.
  startNodeRule,
  terminalNodeRule,
  reachabilityRule,
  edgeTargetExistsRule,
  startNoIncomingRule,
  exitNoOutgoingRule,
  conditionSyntaxRule,
  stylesheetSyntaxRule,
  typeKnownRule,
  fidelityValidRule,
  retryTargetExistsRule,
  goalGateHasRetryRule,
  promptOnLlmNodesRule,
  // Attributes.
  attributeTypeRule,
  durationUnitRule,
  unknownAttributeRule,
  dialectAliasRule,
  inertAttributeRule,
  shapeMappingRule,
  attributeOverriddenRule,
  // Routing.
  conditionKeyRule,
  conditionCoverageRule,
  contextKeyUnsetRule,
  outcomeCoverageRule,
  deadEndRule,
  deadEdgeRule,
  exitUnreachableRule,
  duplicateEdgeRule,
  loopRestartStartRule,
  goalGateBypassRule,
  // Handlers.
  startPromptRule,
  toolCommandRequiredRule,
  mcpServerKnownRule,
  fanInModeRule,
  humanGateEdgesRule,
  humanGateLabelsRule,
  humanGateAcceleratorsRule,
  humanDefaultChoiceRule,
  managerChildDotfileRule,
  subgraphRefRule,
  subgraphInputRule,
  parallelFanInRule,
  fanInWithoutParallelRule,
  joinPolicyOptionsRule,
  joinMergeRule,
  foreachNodeRule,
  // Prompts and stylesheet.
  goalVariableUndefinedRule,
  promptVariableRule,
  // Typed data.
  inputsDeclarationRule,
  inputVariableRule,
  outputSchemaRule,
  outMapFieldRule,
  outMapStateRule,
  outMapConflictRule,
  outputUnwrittenRule,
  stylesheetPropertyRule,
  stylesheetSelectorUnmatchedRule,
];
