export { BACKEND_VALUES } from '@attractor/stylesheet';
export { parseAcceleratorKey } from './accelerator-key.js';
export type {
  AttributeDefinition,
  AttributeKey,
  AttributeScope,
  AttributeValue,
  CodingToolName,
  EdgeAttributeKey,
  EdgeFields,
  GraphAttributeKey,
  GraphSettingsOptions,
  JoinPolicy,
  NodeAttributeKey,
  NodeFields,
  ParsedAttributeValue,
} from './attribute-schema.js';
export {
  ATTRIBUTE_DEFINITIONS,
  attributeDefinition,
  CODING_TOOL_NAMES,
  DIALECT_ALIASES,
  defaultMaxSteps,
  edgeAttribute,
  edgeFields,
  FIDELITY_MODES,
  GRAPHVIZ_ATTRIBUTES,
  graphAttribute,
  graphSettings,
  nodeAttribute,
  nodeFields,
  parseAttributeValue,
  SUBGRAPH_INPUT_PREFIX,
  SUBGRAPH_VARIABLE_PREFIX,
  splitClassList,
} from './attribute-schema.js';
export type { BuildGraphOptions } from './build-graph.js';
export { buildGraph, deriveClassName } from './build-graph.js';
export { ValidationError } from './errors/validation-error.js';
export type { ExpandedText, ExpandVariablesOptions } from './expand-variables.js';
export { expandVariables, inputVariableNames, itemVariableNames } from './expand-variables.js';
export { type FindJoinNodeOptions, findJoinNode } from './find-join-node.js';
export { foreachListKey } from './foreach-list-key.js';
export {
  FOREACH_MODES,
  type ForeachMode,
  ITEM_ERROR_POLICIES,
  type ItemErrorPolicy,
} from './foreach-mode.js';
export { type FormatPipelineOptions, formatPipeline } from './format-pipeline.js';
export type {
  AttributeOrigin,
  BuiltInHandlerType,
  FidelityMode,
  GraphAttribute,
  GraphAttributes,
  GraphEdge,
  GraphInit,
  GraphNode,
  GraphSettings,
  MappedShape,
  ReasoningEffort,
} from './graph.js';
export { BUILT_IN_HANDLER_TYPE_NAMES, Graph, SHAPE_TO_HANDLER_TYPE } from './graph.js';
export type {
  AttributeChecks,
  AttributeProblem,
  AttributeSchema,
  AttributesSchema,
  ParsedAttributes,
} from './handler-attributes.js';
export { attributeChecks, attributeSchema, lenientAttributeSchema } from './handler-attributes.js';
export {
  HANDLER_CAPABILITY_FLAGS,
  type HandlerTraits,
  handlerTraits,
  SPEC_HANDLER_TRAITS,
  traitsOfType,
} from './handler-traits.js';
export type {
  DeclarationError,
  DeclarationFailure,
  InputDeclaration,
  InputDeclarationResult,
  InputField,
  JsonSchemaObject,
  OutputsDeclarationResult,
  StateDeclarationResult,
  StateMergeRule,
} from './input-declaration.js';
export {
  INPUT_TYPE_NAMES,
  parseInputDeclaration,
  parseOutputsDeclaration,
  parseStateDeclaration,
  STATE_MERGE_RULES,
} from './input-declaration.js';
export { BUILT_IN_RULES } from './lint/built-in-rules.js';
export type {
  Diagnostic,
  DiagnosticEdit,
  HandlerLintInfo,
  LintContext,
  LintRule,
  Severity,
} from './lint/diagnostic.js';
export { didYouMean } from './lint/did-you-mean.js';
export { comparedLiterals, customOutcomeWords, STANDARD_OUTCOMES } from './lint/edge-conditions.js';
export { formatDiagnostic } from './lint/format-diagnostic.js';
export type { ChildPipelineRef, GraphFileReader } from './lint/graph-refs.js';
export { childPipelineRef, MAX_GRAPH_REF_DEPTH } from './lint/graph-refs.js';
export { promptFileRef } from './lint/prompt-files.js';
export { resolveGraphRef } from './lint/resolve-graph-ref.js';
export type { ValidateOptions } from './lint/validate.js';
export { BUILT_IN_HANDLER_TYPES, sortDiagnostics, validate, validateOrThrow } from './lint/validate.js';
export { mcpServerNames } from './mcp-server-names.js';
export type {
  OutMapEntry,
  OutMapResult,
  OutputSchemaDeclaration,
  OutputSchemaDeclarationResult,
} from './output-schema-declaration.js';
export { parseOutMap, parseOutputSchemaDeclaration } from './output-schema-declaration.js';
export type { PreparedGraph, PrepareGraphOptions } from './prepare-graph.js';
export { BUILT_IN_TRANSFORMS, prepareGraph } from './prepare-graph.js';
export { SPEC_HANDLER_DECLARATIONS } from './spec-handler-declarations.js';
export { strictSchemaProblem, strictSchemaVariant, withoutOptionalNulls } from './strict-json-schema.js';
export { applyStylesheetTransform } from './transforms/apply-stylesheet.js';
export { expandGoalVariable, expandGoalVariableTransform } from './transforms/expand-goal-variable.js';
export type { Transform } from './transforms/transform.js';
