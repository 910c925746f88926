/**
 * The agentic loop of one stage attempt (coding-agent-loop-spec §2.5) on the AI SDK: `streamText` (or
 * `generateText` when streaming is off) with `stopWhen` (a text-only reply, a `report_outcome` call, or the turn
 * limit) and `prepareStep`, which checks the run's budget and adds steering messages and loop-detection warnings
 * before each model call.
 * Streams text deltas as `agent.text` events, records every step with its token usage, and warns when a step's
 * input nears the context window (coding-agent-loop-spec §5.5).
 */
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { EmittableEvent } from '@attractor/engine';
import {
  generateText,
  hasToolCall,
  isStepCount,
  type JSONSchema7,
  jsonSchema,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  Output,
  type OutputInterface,
  type PrepareStepFunction,
  type StepResult,
  streamText,
  type TelemetryOptions,
  type ToolSet,
} from 'ai';
import { detectToolLoop, LOOP_DETECTION_WINDOW, loopWarning } from './detect-tool-loop.js';
import type { TokenUsage } from './price-table.js';
import { type InjectedMessage, withInjectedMessages } from './steering-messages.js';
import type { TranscriptWriter } from './transcript-file.js';

/** Options of {@link runAgentLoop}. */
export interface AgentLoopOptions {
  readonly model: Exclude<LanguageModel, string>;
  readonly modelId: string;
  readonly system: string;
  /** Earlier turns of the thread (for `full` fidelity) followed by this stage's user message. */
  readonly initial: readonly ModelMessage[];
  readonly tools: ToolSet;
  /** Model calls at most. */
  readonly maxTurns: number;
  /** The model's context window, in tokens: a step whose input exceeds 80% of it gets a warning. */
  readonly contextWindowTokens?: number;
  readonly providerOptions?: SharedV4ProviderOptions;
  /** The cost of some usage of this model in USD (`'unknown'` for a model without a price). */
  readonly cost: (usage: TokenUsage) => number | 'unknown';
  /** Stream the reply (`streamText`, text deltas as events). Default: true. */
  readonly streaming?: boolean;
  readonly abortSignal: AbortSignal;
  readonly takeSteering: () => Promise<string[]>;
  /**
   * The run's budget check (`CodergenRequest.usage.checkBudget`), called before each model call with the spend so far;
   * it throws `BudgetExceededError` once the run spent its budget. Default: none.
   */
  readonly checkBudget?: () => void;
  readonly emit: (event: EmittableEvent) => void;
  readonly transcript: TranscriptWriter;
  /** The AI SDK's telemetry setting of the call (see ai-sdk-telemetry.ts). Default: the AI SDK's default. */
  readonly telemetry?: TelemetryOptions;
  /**
   * The JSON Schema the final reply must match (the node's `output_schema`, README "Typed data"): sent as the
   * response format (`Output.object`), so the provider asks the model for JSON of it. The reply text is returned as
   * it came; the codergen handler validates it. Default: none, a text reply.
   */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

/** What the loop produced. */
export interface AgentLoopResult {
  /** The final reply (the last step's text). */
  readonly text: string;
  /** The whole conversation: `initial`, then the responses with steering and warnings in place. */
  readonly history: readonly ModelMessage[];
  readonly steps: number;
  readonly usage: TokenUsage;
  /** True when the loop stopped at `maxTurns` while the model still wanted to call tools. */
  readonly turnLimitReached: boolean;
}

function preview(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

/** Adds one step's usage to a running total; missing counts are 0. */
export function addUsage(total: TokenUsage, usage: LanguageModelUsage): TokenUsage {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    inputTokens: total.inputTokens + input,
    outputTokens: total.outputTokens + output,
    cachedInputTokens: total.cachedInputTokens + (usage.inputTokenDetails?.cacheReadTokens ?? 0),
    cacheWriteTokens: total.cacheWriteTokens + (usage.inputTokenDetails?.cacheWriteTokens ?? 0),
    reasoningTokens: total.reasoningTokens + (usage.outputTokenDetails?.reasoningTokens ?? 0),
    totalTokens: total.totalTokens + (usage.totalTokens ?? input + output),
  };
}

/** No tokens. */
export const ZERO_USAGE: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
};

/**
 * Runs the loop. The AI SDK's own retries are off (`maxRetries: 0`): transient errors are retried per call by the
 * backend's middleware; other provider errors propagate for the caller to map.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { initial, emit, transcript } = options;
  const injected: InjectedMessage[] = [];
  const signatures: string[] = [];
  let warnedAt = 0;
  let contextWarned = false;
  let usage = ZERO_USAGE;
  let stepNumber = 0;
  const inject = (position: number, text: string) => {
    injected.push({ position, message: { role: 'user', content: text } });
  };

  const prepareStep: PrepareStepFunction<ToolSet> = async ({ messages }) => {
    options.abortSignal.throwIfAborted();
    options.checkBudget?.();
    const position = messages.length - initial.length;
    for (const text of await options.takeSteering()) {
      inject(position, text);
      emit({ type: 'stage.log', level: 'info', message: `steering message injected: ${preview(text)}` });
      await transcript.write({ type: 'steering', text });
    }
    if (signatures.length - warnedAt >= LOOP_DETECTION_WINDOW && detectToolLoop(signatures)) {
      warnedAt = signatures.length;
      const warning = loopWarning(LOOP_DETECTION_WINDOW);
      inject(position, warning);
      emit({ type: 'stage.log', level: 'warn', message: warning });
      await transcript.write({ type: 'loop_detection', text: warning });
    }
    return injected.length === 0
      ? undefined
      : { messages: withInjectedMessages(messages, initial.length, injected) };
  };

  const onStepEnd = async (step: StepResult<ToolSet>) => {
    stepNumber += 1;
    usage = addUsage(usage, step.usage);
    const input = step.usage.inputTokens ?? 0;
    const output = step.usage.outputTokens ?? 0;
    for (const call of step.toolCalls) signatures.push(`${call.toolName}:${JSON.stringify(call.input)}`);
    const window = options.contextWindowTokens;
    if (window !== undefined && !contextWarned && input > window * 0.8) {
      contextWarned = true;
      emit({
        type: 'stage.log',
        level: 'warn',
        message: `Context usage at ~${Math.round((input / window) * 100)}% of the context window (${input} of ${window} tokens)`,
      });
    }
    for (const warning of step.warnings ?? []) {
      const message = `AI SDK warning (${options.modelId}): ${'feature' in warning ? `${warning.feature} ${warning.type}${warning.details === undefined ? '' : `: ${warning.details}`}` : warning.message}`;
      emit({ type: 'stage.log', level: 'warn', message });
    }
    if (step.text !== '') emit({ type: 'agent.text', text: step.text, delta: false });
    const cached = step.usage.inputTokenDetails?.cacheReadTokens ?? 0;
    const reasoning = step.usage.outputTokenDetails?.reasoningTokens ?? 0;
    emit({
      type: 'agent.usage',
      inputTokens: input,
      outputTokens: output,
      model: options.modelId,
      ...(cached === 0 ? {} : { cachedInputTokens: cached }),
      ...(reasoning === 0 ? {} : { reasoningTokens: reasoning }),
      costUsd: options.cost(addUsage(ZERO_USAGE, step.usage)),
    });
    // Not awaited: the stream waits for this callback, and the transcript keeps its order (flushed by the caller).
    void transcript.write({
      type: 'step',
      step: stepNumber,
      finishReason: step.finishReason,
      text: step.text,
      ...(step.reasoningText === undefined ? {} : { reasoning: step.reasoningText }),
      toolCalls: step.toolCalls.map((call) => ({ callId: call.toolCallId, toolName: call.toolName })),
      usage: {
        inputTokens: input,
        outputTokens: output,
        cachedInputTokens: cached,
        reasoningTokens: reasoning,
      },
      ...(step.warnings === undefined || step.warnings.length === 0 ? {} : { warnings: step.warnings }),
    });
  };

  const output = options.outputSchema === undefined ? undefined : replyAsJson(options.outputSchema);
  const call = {
    ...(output === undefined ? {} : { output }),
    model: options.model,
    system: options.system,
    messages: [...initial],
    ...(Object.keys(options.tools).length === 0 ? {} : { tools: options.tools }),
    stopWhen: [isStepCount(options.maxTurns), hasToolCall('report_outcome')],
    maxRetries: 0,
    abortSignal: options.abortSignal,
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    prepareStep,
    onStepEnd,
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
  };

  let steps: readonly StepResult<ToolSet>[];
  let text: string;
  let responseMessages: readonly ModelMessage[];
  if (options.streaming === false) {
    const result = await generateText(call);
    steps = result.steps;
    text = result.text;
    responseMessages = result.responseMessages;
  } else {
    const result = streamText({
      ...call,
      // The error also arrives as the stream's `error` part, thrown below and mapped by the backend. Without an
      // onError the AI SDK console.errors it (stack, request body and prompt included), which a CLI must not show.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta' && part.text !== '') {
        emit({ type: 'agent.text', text: part.text, delta: true });
      } else if (part.type === 'error') {
        throw part.error;
      }
    }
    options.abortSignal.throwIfAborted();
    steps = await result.steps;
    text = await result.text;
    responseMessages = await result.responseMessages;
  }

  const lastStep = steps.at(-1);
  const reportedOutcome = steps.some((step) =>
    step.toolCalls.some((toolCall) => toolCall.toolName === 'report_outcome'),
  );
  return {
    text,
    history: withInjectedMessages([...initial, ...responseMessages], initial.length, injected),
    steps: steps.length,
    usage,
    turnLimitReached:
      !reportedOutcome && steps.length >= options.maxTurns && (lastStep?.toolCalls.length ?? 0) > 0,
  };
}

/**
 * An AI SDK output specification that asks for JSON of `schema` (the response format of `Output.object`) and hands
 * the reply text back as it is: the codergen handler validates it and reports every problem as a retryable failure,
 * where the AI SDK's own parse would throw and lose the attempt's steps.
 */
function replyAsJson(schema: Readonly<Record<string, unknown>>): OutputInterface<string, undefined, never> {
  const object = Output.object({ schema: jsonSchema(schema as JSONSchema7) });
  return {
    name: object.name,
    responseFormat: object.responseFormat,
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  };
}
