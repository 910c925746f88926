/**
 * The agentic loop of one stage attempt (coding-agent-loop-spec §2.5) on the AI SDK: `generateText` with
 * `stopWhen` (a text-only reply, a `report_outcome` call, or the turn limit) and `prepareStep`, which adds
 * steering messages and loop-detection warnings before each model call. Records every step, and warns when a
 * step's input nears the context window (coding-agent-loop-spec §5.5).
 */
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { EmittableEvent } from '@attractor/engine';
import {
  generateText,
  hasToolCall,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  type ToolSet,
} from 'ai';
import { detectToolLoop, LOOP_DETECTION_WINDOW, loopWarning } from './detect-tool-loop.js';
import type { StageUsage } from './stage-outcome.js';
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
  readonly providerOptions?: SharedV3ProviderOptions;
  readonly abortSignal: AbortSignal;
  readonly takeSteering: () => Promise<string[]>;
  readonly emit: (event: EmittableEvent) => void;
  readonly transcript: TranscriptWriter;
}

/** What the loop produced. */
export interface AgentLoopResult {
  /** The final reply (the last step's text). */
  readonly text: string;
  /** The whole conversation: `initial`, then the responses with steering and warnings in place. */
  readonly history: readonly ModelMessage[];
  readonly steps: number;
  readonly usage: StageUsage;
  /** True when the loop stopped at `maxTurns` while the model still wanted to call tools. */
  readonly turnLimitReached: boolean;
}

function preview(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

/**
 * Runs the loop. The AI SDK's retries are off (`maxRetries: 0`); provider errors propagate for the caller to map.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { initial, emit, transcript } = options;
  const injected: InjectedMessage[] = [];
  const signatures: string[] = [];
  let warnedAt = 0;
  let contextWarned = false;
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let stepNumber = 0;
  const inject = (position: number, text: string) => {
    injected.push({ position, message: { role: 'user', content: text } });
  };

  const result = await generateText({
    model: options.model,
    system: options.system,
    messages: [...initial],
    ...(Object.keys(options.tools).length === 0 ? {} : { tools: options.tools }),
    stopWhen: [stepCountIs(options.maxTurns), hasToolCall('report_outcome')],
    maxRetries: 0,
    abortSignal: options.abortSignal,
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    prepareStep: async ({ messages }) => {
      options.abortSignal.throwIfAborted();
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
    },
    onStepFinish: async (step) => {
      stepNumber += 1;
      const input = step.usage.inputTokens ?? 0;
      const output = step.usage.outputTokens ?? 0;
      usage.inputTokens += input;
      usage.outputTokens += output;
      usage.totalTokens += step.usage.totalTokens ?? input + output;
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
      emit({ type: 'agent.usage', inputTokens: input, outputTokens: output, model: options.modelId });
      await transcript.write({
        type: 'step',
        step: stepNumber,
        finishReason: step.finishReason,
        text: step.text,
        ...(step.reasoningText === undefined ? {} : { reasoning: step.reasoningText }),
        toolCalls: step.toolCalls.map((call) => ({ callId: call.toolCallId, toolName: call.toolName })),
        usage: { inputTokens: input, outputTokens: output },
        ...(step.warnings === undefined || step.warnings.length === 0 ? {} : { warnings: step.warnings }),
      });
    },
  });

  const lastStep = result.steps.at(-1);
  const reportedOutcome = result.steps.some((step) =>
    step.toolCalls.some((call) => call.toolName === 'report_outcome'),
  );
  return {
    text: result.text,
    history: withInjectedMessages([...initial, ...result.response.messages], initial.length, injected),
    steps: result.steps.length,
    usage,
    turnLimitReached:
      !reportedOutcome && result.steps.length >= options.maxTurns && (lastStep?.toolCalls.length ?? 0) > 0,
  };
}
