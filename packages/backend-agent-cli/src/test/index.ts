export {
  type AgentTestHome,
  type PrepareAgentTestHomeOptions,
  prepareAgentTestHome,
} from './agent-test-home.js';
export { anthropicWire } from './anthropic-wire.js';
export { geminiWire } from './gemini-wire.js';
export { openaiResponsesWire } from './openai-responses-wire.js';
export {
  type RecordedRequest,
  type ScriptedAttempts,
  type ScriptedScenario,
  type ScriptedServer,
  type ScriptedTurn,
  startScriptedServer,
  type WireProtocol,
  writeEvent,
} from './scripted-server.js';
