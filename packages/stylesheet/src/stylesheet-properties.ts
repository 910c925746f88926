import { closestMatch } from './closest-match.js';
import type { StylesheetDiagnostic, StylesheetSpan } from './stylesheet-ast.js';

/**
 * The properties a stylesheet may set: spec §8.4, plus `backend` (which backend runs a stage, docs/architecture.md
 * "Agent-CLI backends") and `mcp_servers` (the MCP servers whose tools the AI backend offers a stage, README "MCP").
 */
export const STYLESHEET_PROPERTIES = [
  'llm_model',
  'llm_provider',
  'reasoning_effort',
  'backend',
  'mcp_servers',
] as const;

/** A property a stylesheet may set, spec §8.4. */
export type StylesheetProperty = (typeof STYLESHEET_PROPERTIES)[number];

/** The values of `reasoning_effort`, spec §8.4. */
export const REASONING_EFFORT_VALUES = ['low', 'medium', 'high'] as const;

/**
 * The values of `backend` (stylesheet property and node attribute): `api` (the AI SDK backend) or a coding-agent
 * CLI (`claude-code`, `codex`, `gemini-cli`).
 */
export const BACKEND_VALUES = ['api', 'claude-code', 'codex', 'gemini-cli'] as const;

/**
 * Spellings other runners use, so their stylesheets get a precise did-you-mean. Fabro writes
 * `model:` and `provider:`.
 */
const PROPERTY_CANDIDATES = [
  { name: 'llm_model', aliases: ['model', 'model_id'] },
  { name: 'llm_provider', aliases: ['provider'] },
  { name: 'reasoning_effort', aliases: ['effort', 'reasoning', 'thinking'] },
  { name: 'backend', aliases: ['agent', 'runner'] },
  { name: 'mcp_servers', aliases: ['mcp', 'mcp_server', 'mcpservers'] },
] as const;

/** Property names of other runners applied as ours, with a `property_alias` warning: Fabro's `model:` / `provider:`. */
export const STYLESHEET_PROPERTY_ALIASES: Readonly<Record<string, StylesheetProperty>> = {
  model: 'llm_model',
  provider: 'llm_provider',
};

const PROPERTIES: ReadonlySet<string> = new Set(STYLESHEET_PROPERTIES);
const EFFORTS: ReadonlySet<string> = new Set(REASONING_EFFORT_VALUES);
const BACKENDS: ReadonlySet<string> = new Set(BACKEND_VALUES);
const PROPERTY_LIST = 'llm_model, llm_provider, reasoning_effort, backend and mcp_servers';

/**
 * Checks one declaration against spec §8.4 and returns the diagnostic that keeps it from being
 * applied, or `undefined` when it is fine. Internal.
 */
export function checkDeclaration(declaration: {
  readonly property: string;
  readonly value: string;
  readonly propertySpan: StylesheetSpan;
  readonly valueSpan: StylesheetSpan;
}): StylesheetDiagnostic | undefined {
  const { property, value, propertySpan, valueSpan } = declaration;
  if (!PROPERTIES.has(property)) {
    const suggestion = closestMatch(property, PROPERTY_CANDIDATES);
    return {
      severity: 'warning',
      code: 'unknown_property',
      message: `Unknown stylesheet property "${property}"; it is ignored.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      span: propertySpan,
      fix: suggestion
        ? `Rename "${property}" to "${suggestion}".`
        : `Remove "${property}": a stylesheet sets only ${PROPERTY_LIST}.`,
      suggestion,
    };
  }
  if (value === '') {
    return {
      severity: 'error',
      code: 'invalid_value',
      message: `Stylesheet property "${property}" has an empty value; it is ignored.`,
      span: valueSpan,
      fix: `Give "${property}" a value or remove the declaration.`,
    };
  }
  // fnmatch's wildcards: `*`, `?` and a character class `[5-9]`.
  if ((property === 'llm_model' || property === 'llm_provider') && /[*?[\]]/.test(value)) {
    return {
      severity: 'warning',
      code: 'model_glob',
      message: `"${value}" is a glob, not a ${property === 'llm_model' ? 'model id' : 'provider'}: runners with a model catalogue (Amplifier) pick a match, but this one sends ${property} to the provider as written and has no catalogue, so the declaration is not applied and the node keeps the run's default model.`,
      span: valueSpan,
      fix: `Write the ${property === 'llm_model' ? 'model id (e.g. llm_model: claude-sonnet-4-5)' : 'provider (e.g. llm_provider: anthropic)'} instead of a glob.`,
    };
  }
  if (property === 'reasoning_effort' && !EFFORTS.has(value)) {
    const lower = value.toLowerCase();
    const suggestion = EFFORTS.has(lower)
      ? lower
      : closestMatch(
          value,
          REASONING_EFFORT_VALUES.map((name) => ({ name })),
        );
    return {
      severity: 'error',
      code: 'invalid_value',
      message: `"${value}" is not a reasoning_effort (low, medium or high); it is ignored.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      span: valueSpan,
      fix: suggestion
        ? `Write reasoning_effort: ${suggestion}.`
        : 'Write reasoning_effort: low, medium or high.',
      suggestion,
    };
  }
  if (property === 'backend' && !BACKENDS.has(value)) {
    const suggestion = closestMatch(
      value.toLowerCase(),
      BACKEND_VALUES.map((name) => ({ name })),
    );
    return {
      severity: 'error',
      code: 'invalid_value',
      message: `"${value}" is not a backend (${BACKEND_VALUES.join(', ')}); it is ignored.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      span: valueSpan,
      fix: suggestion ? `Write backend: ${suggestion}.` : `Write backend: ${BACKEND_VALUES.join(', ')}.`,
      suggestion,
    };
  }
  return undefined;
}
