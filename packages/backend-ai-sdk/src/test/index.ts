export type { NormalizedMessage, RecordedRequest } from './recorded-request.js';
export type {
  ScriptedOpenAIServer,
  ScriptedOpenAIServerOptions,
} from './scripted-openai-server.js';
export { startScriptedOpenAIServer } from './scripted-openai-server.js';
export type { ScriptedReply, ScriptedStep, ScriptedToolCall, ScriptedUsage } from './scripted-reply.js';
