export type { NormalizedMessage, RecordedRequest, ScriptedApi } from './recorded-request.js';
export type {
  ScriptedOpenAIServer,
  ScriptedOpenAIServerOptions,
} from './scripted-openai-server.js';
export {
  startScriptedOpenAIServer,
  startScriptedOpenAIServer as startScriptedLlmServer,
} from './scripted-openai-server.js';
export type { ScriptedReply, ScriptedStep, ScriptedToolCall, ScriptedUsage } from './scripted-reply.js';
