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

const TOKEN_PATTERN = /\s*("(?:[^"\\]|\\.)*"?|&&|\|\||!=|==|>=|<=|=~|!~|[A-Za-z0-9_.:\-/]+|\S)/y;
const BAD_ESCAPE_PATTERN = /\\[^"\\nrt]/;
const LANGUAGE =
  'spec §10.2 allows only clauses joined by "&&" that compare a key with "=" or "!=", or test a bare key';

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
  } else if (expected === 'end of input' && failureOffset > 0) {
    // Ohm drops the "&&" that was also possible here (it failed inside an iteration).
    expected = 'end of input or "&&"';
  }
  let shortMessage = `Expected ${expected}`;
  let detail = `expected ${expected}`;
  let fix: string | undefined;
  let unsupportedOperator: string | undefined;

  const unsupported = token ? UNSUPPORTED_OPERATORS[token.text.toLowerCase()] : undefined;
  if (token && unsupported) {
    offset = token.offset;
    length = token.text.length;
    unsupportedOperator = token.text;
    shortMessage = `${capitalise(unsupported.name)} is not part of the condition language`;
    detail = `${shortMessage}: ${LANGUAGE}`;
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

  const { line, column } = lineAndColumn(source, offset);
  const message = [
    `Line ${line}, col ${column}: ${detail}.`,
    excerpt(source, offset, length),
    ...(fix ? [`Fix: ${fix}`] : []),
  ].join('\n');
  return new ConditionSyntaxError({
    source,
    location: { offset, line, column },
    length,
    shortMessage,
    expected,
    unsupportedOperator,
    message,
  });
}
