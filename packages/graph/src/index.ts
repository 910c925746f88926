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
export { Graph, SHAPE_TO_HANDLER_TYPE } from './graph.js';
