import { ConditionSyntaxError } from './errors/condition-syntax-error.js';

interface Token {
  readonly text: string;
  readonly offset: number;
}

interface UnsupportedOperator {
  /** How the operator is named in the message. */
  readonly name: string;
  readonly fix: string;
}

const OR_FIX =
  'Draw one edge per alternative, each with its own condition (edges are tried in order, spec §3.3).';
const NOT_FIX =
  'Compare with "!=" instead (e.g. context.flag!=true), or route the other case with an edge without a condition.';
const COMPUTE_FIX =
  'Compute the answer in a tool or prompt, store it in the context, and compare that value with "=" (e.g. context.has_id=true).';
const AND_FIX = 'Join clauses with "&&", e.g. outcome=success && context.tests_passed=true.';

/**
 * Operators that users bring from other languages or from spec §10.7 (future extensions). Keys are
 * the token as written (lower-cased for words).
 */
const UNSUPPORTED_OPERATORS: Readonly<Record<string, UnsupportedOperator>> = {
  '||': { name: '"||" (or)', fix: OR_FIX },
  or: { name: 'or', fix: OR_FIX },
  '|': { name: '"|"', fix: OR_FIX },
  '!': { name: '"!" (not)', fix: NOT_FIX },
  not: { name: 'not', fix: NOT_FIX },
  and: { name: 'and', fix: AND_FIX },
  '&': { name: '"&"', fix: AND_FIX },
  '==': { name: '"=="', fix: 'Use a single "=" for equality, e.g. outcome=success.' },
  '<': { name: '"<" (numeric comparison)', fix: COMPUTE_FIX },
  '>': { name: '">" (numeric comparison)', fix: COMPUTE_FIX },
  '<=': { name: '"<=" (numeric comparison)', fix: COMPUTE_FIX },
  '>=': { name: '">=" (numeric comparison)', fix: COMPUTE_FIX },
  contains: { name: '"contains"', fix: COMPUTE_FIX },
  matches: { name: '"matches"', fix: COMPUTE_FIX },
  '=~': { name: '"=~" (regular expression match)', fix: COMPUTE_FIX },
  '!~': { name: '"!~" (regular expression match)', fix: COMPUTE_FIX },
  in: { name: '"in"', fix: OR_FIX },
  '(': {
    name: 'parentheses',
    fix: 'Remove the parentheses: a condition is a flat list of clauses joined by "&&".',
  },
  ')': {
    name: 'parentheses',
    fix: 'Remove the parentheses: a condition is a flat list of clauses joined by "&&".',
  },
};

/** Tokens of {@link UNSUPPORTED_OPERATORS} that the extended grammar accepts (refused only with `strict`). */
const EXTENSION_TOKENS: ReadonlySet<string> = new Set([
  '||',
  '!',
  '<',
  '>',
  '<=',
  '>=',
  'contains',
  'matches',
  '(',
  ')',
]);

const TOKEN_PATTERN = /\s*("(?:[^"\\]|\\.)*"?|&&|\|\||!=|==|>=|<=|=~|!~|[A-Za-z0-9_.:\-/]+|\S)/y;
const BAD_ESCAPE_PATTERN = /\\[^"\\nrt]/;
const LANGUAGE =
  'spec §10.2 allows only clauses joined by "&&" that compare a key with "=" or "!=", or test a bare key';
const STRICT_LANGUAGE = `${LANGUAGE} (--strict keeps to it; without --strict, ||, !, parentheses, <, >, <=, >=, contains, !contains and matches are accepted)`;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  TOKEN_PATTERN.lastIndex = 0;
  for (let match = TOKEN_PATTERN.exec(source); match !== null; match = TOKEN_PATTERN.exec(source)) {
    const text = match[1]!;
    tokens.push({ text, offset: TOKEN_PATTERN.lastIndex - text.length });
  }
  return tokens;
}

function lineAndColumn(source: string, offset: number): { line: number; column: number; lineStart: number } {
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1, lineStart };
}

function excerpt(source: string, offset: number, length: number): string {
  const { line, column, lineStart } = lineAndColumn(source, offset);
  const lineEnd = source.indexOf('\n', lineStart);
  const text = source.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const gutter = `${line} | `;
  const caret = '^'.repeat(Math.max(1, Math.min(length, text.length - column + 1)));
  return `> ${gutter}${text}\n  ${' '.repeat(gutter.length + column - 1)}${caret}`;
}

function isUnterminatedString(text: string): boolean {
  if (text.length < 2 || !text.endsWith('"')) return true;
  let backslashes = 0;
  for (let index = text.length - 2; index > 0 && text[index] === '\\'; index -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function tokenAt(tokens: readonly Token[], offset: number): { token: Token | undefined; index: number } {
  const index = tokens.findIndex((token) => token.offset + token.text.length > offset);
  return { token: index === -1 ? undefined : tokens[index], index };
}

/**
 * Turns a failed match of `source` (rightmost failure at `failureOffset`, Ohm's `expected` text) into
 * a {@link ConditionSyntaxError} whose message names the problem and its fix: an operator the language
 * does not have (spec §10.7), an unterminated string, a bad escape, or a value that needs quotes.
 * Internal.
 */
export function explainConditionFailure(options: {
  readonly source: string;
  readonly failureOffset: number;
  readonly expected: string;
  /** Whether the §10.7 extensions are refused too. Default: false. */
  readonly strict?: boolean;
}): ConditionSyntaxError {
  const { source } = options;
  const tokens = tokenize(source);
  const danglingDot = source[options.failureOffset] === '.';
  // A key ending in "." fails at the dot; the name is missing just after it.
  const failureOffset = danglingDot ? options.failureOffset + 1 : options.failureOffset;
  const { token, index } = tokenAt(tokens, failureOffset);
  const previous = index > 0 ? tokens[index - 1] : tokens.at(-1);

  let offset = failureOffset;
  let length = 0;
  let expected = options.expected;
  if (danglingDot) {
    expected = 'a name after "."';
  } else if ((expected === 'end of input' || expected === '")"') && failureOffset > 0) {
    // Ohm drops the "||" and "&&" that were also possible here (they failed inside an iteration).
    expected = `${expected}, "||", or "&&"`;
  }
  let shortMessage = `Expected ${expected}`;
  let detail = `expected ${expected}`;
  let fix: string | undefined;
  let unsupportedOperator: string | undefined;

  const word = token?.text.toLowerCase() ?? '';
  const unsupported =
    token && (options.strict === true || !EXTENSION_TOKENS.has(word))
      ? UNSUPPORTED_OPERATORS[word]
      : undefined;
  if (token && unsupported) {
    offset = token.offset;
    length = token.text.length;
    unsupportedOperator = token.text;
    shortMessage = `${capitalise(unsupported.name)} is not part of the condition language`;
    detail = `${shortMessage}: ${options.strict === true ? STRICT_LANGUAGE : LANGUAGE}`;
    fix = unsupported.fix;
  } else if (token?.text.startsWith('"')) {
    const badEscape = BAD_ESCAPE_PATTERN.exec(token.text);
    offset = token.offset;
    length = token.text.length;
    if (isUnterminatedString(token.text)) {
      shortMessage = 'Unterminated string';
      detail = 'unterminated string: the closing double quote is missing';
      fix = 'Close the string with a double quote ("); write \\" for a quote inside it.';
    } else if (badEscape) {
      offset = token.offset + badEscape.index;
      length = 2;
      shortMessage = `Unknown escape "${badEscape[0]}" in a string`;
      detail = `unknown escape "${badEscape[0]}" in a string`;
      fix = 'Use one of the escapes \\", \\\\, \\n, \\r and \\t.';
    }
  } else {
    length = token?.offset === failureOffset ? token.text.length : 0;
    if (expected === 'a value') {
      fix =
        'Write the value as a name ([A-Za-z_][A-Za-z0-9_.:-]*), an integer, or a quoted string, e.g. context.version="1.5".';
    } else if (
      token &&
      previous &&
      /^[A-Za-z0-9_"]/.test(previous.text) &&
      /^[A-Za-z0-9_]/.test(token.text)
    ) {
      fix = 'Quote a value that contains spaces (key="two words"), and join clauses with "&&".';
    }
  }

  return syntaxError({ source, offset, length, shortMessage, detail, expected, fix, unsupportedOperator });
}

/** A `ConditionSyntaxError` whose message is the location, `detail`, the excerpt with a caret, and the fix. */
function syntaxError(options: {
  readonly source: string;
  readonly offset: number;
  readonly length: number;
  readonly shortMessage: string;
  readonly detail: string;
  readonly expected: string;
  readonly fix: string | undefined;
  readonly unsupportedOperator?: string | undefined;
}): ConditionSyntaxError {
  const { source, offset, length } = options;
  const { line, column } = lineAndColumn(source, offset);
  const message = [
    `Line ${line}, col ${column}: ${options.detail}.`,
    excerpt(source, offset, length),
    ...(options.fix ? [`Fix: ${options.fix}`] : []),
  ].join('\n');
  return new ConditionSyntaxError({
    source,
    location: { offset, line, column },
    length,
    shortMessage: options.shortMessage,
    expected: options.expected,
    unsupportedOperator: options.unsupportedOperator,
    message,
  });
}

/**
 * The error `parseCondition(text, { strict: true })` throws for a construct of the extended grammar (spec §10.7)
 * at `offset`: the same message as an operator the language does not have, saying that `--strict` keeps to §10.2.
 * Internal.
 */
export function explainStrictExtension(source: string, offset: number): ConditionSyntaxError {
  return explainConditionFailure({
    source,
    failureOffset: offset,
    expected: 'an operator "=" or "!="',
    strict: true,
  });
}

/** The error for a `matches` pattern that is not a valid regular expression. Internal. */
export function explainInvalidPattern(options: {
  readonly source: string;
  readonly offset: number;
  readonly length: number;
  readonly reason: string;
}): ConditionSyntaxError {
  const shortMessage = `Invalid regular expression after "matches": ${options.reason}`;
  return syntaxError({
    ...options,
    shortMessage,
    detail: `${shortMessage.charAt(0).toLowerCase()}${shortMessage.slice(1)}`,
    expected: 'a regular expression',
    fix: 'Write a JavaScript regular expression in a quoted string, e.g. context.version matches "^v[0-9]+$".',
  });
}
