export type {
  CodergenBackendContractOptions,
  TestCodergenRequestOptions,
} from './codergen-backend-contract.js';
export { createTestCodergenRequest, describeCodergenBackendContract } from './codergen-backend-contract.js';
export type { TestEdgeSpec, TestGraphSpec, TestNodeSpec } from './graph-builder.js';
export { createChainGraph, createTestGraph, createTestNode, defaultTestSettings } from './graph-builder.js';
export { graphFrom } from './graph-from.js';
export type { MemoryRunStore, StoredBlob } from './memory-run-store.js';
export { createMemoryRunStore } from './memory-run-store.js';
export type { RunCatalogFixture } from './run-catalog-contract.js';
export { describeRunCatalogContract } from './run-catalog-contract.js';
export type { RunDotOptions, RunDotResult } from './run-dot.js';
export { runDot } from './run-dot.js';
export type { RunStoreFixture } from './run-store-contract.js';
export {
  createTestCheckpoint,
  createTestManifest,
  deadProcessId,
  describeRunStoreContract,
} from './run-store-contract.js';
export type {
  ScriptedCall,
  ScriptedHandler,
  ScriptedHandlerOptions,
  ScriptStep,
} from './scripted-handler.js';
export { createScriptedHandler } from './scripted-handler.js';
export type { ScriptedInterviewer } from './scripted-interviewer.js';
export { createScriptedInterviewer } from './scripted-interviewer.js';
export { tempDir } from './temp-dir.js';
export type { TestClock, TestClockOptions } from './test-clock.js';
export { createTestClock } from './test-clock.js';
export type { TestRuntime, TestRuntimeOptions } from './test-runtime.js';
export { createTestRuntime } from './test-runtime.js';
export { wholeJsonLines } from './whole-json-lines.js';
