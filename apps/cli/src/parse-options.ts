/**
 * Parsers for option values, used by commander. Each throws `InvalidArgumentError` with a message that says what
 * a valid value looks like; commander prints it and the CLI exits with code 2.
 */
import { InvalidArgumentError } from 'commander';

/** A JSON value as `--set` produces it. */
export type SetValue =
  | string
  | number
  | boolean
  | null
  | readonly SetValue[]
  | { readonly [key: string]: SetValue };

/**
 * Parses one `--set key=value` into `[key, value]`: the value is JSON-parsed when it is valid JSON (numbers,
 * booleans, `null`, quoted strings, arrays, objects), otherwise kept as a string.
 *
 * @example parseSetOption('retries=3') // ['retries', 3]
 * @example parseSetOption('topic=release notes') // ['topic', 'release notes']
 * @throws {InvalidArgumentError} when there is no `=` or the key is empty.
 */
export function parseSetOption(text: string): [string, SetValue] {
  const equals = text.indexOf('=');
  if (equals <= 0) {
    throw new InvalidArgumentError(
      `expected key=value (e.g. --set topic=release or --set retries=3), got "${text}".`,
    );
  }
  const key = text.slice(0, equals).trim();
  const raw = text.slice(equals + 1);
  if (key === '') throw new InvalidArgumentError(`the key before "=" is empty in "${text}".`);
  try {
    return [key, JSON.parse(raw) as SetValue];
  } catch {
    return [key, raw];
  }
}

/** Commander reducer for repeatable `--set`. */
export function collectSet(text: string, previous: Record<string, SetValue> = {}): Record<string, SetValue> {
  const [key, value] = parseSetOption(text);
  return { ...previous, [key]: value };
}

/**
 * Commander reducer for repeatable `--input name=value`: the value's text as written, by name (the run reads it by
 * the input's declared type, `parseInputText` of `@attractor/engine`).
 *
 * @throws {InvalidArgumentError} when there is no `=` or the name is empty.
 */
export function collectInput(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const equals = text.indexOf('=');
  const name = equals <= 0 ? '' : text.slice(0, equals).trim();
  if (name === '') {
    throw new InvalidArgumentError(`expected name=value (e.g. --input repo=acme/api), got "${text}".`);
  }
  return { ...previous, [name]: text.slice(equals + 1) };
}

/** Commander reducer for repeatable string options (`--answer`). */
export function collectString(text: string, previous: readonly string[] = []): string[] {
  return [...previous, text];
}

/**
 * Parses a positive integer option (`--max-steps`).
 *
 * @throws {InvalidArgumentError} for anything else.
 */
export function parsePositiveInteger(text: string): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw new InvalidArgumentError(`expected a whole number of at least 1, got "${text}".`);
  }
  return Number(text);
}

/**
 * Parses a whole-number option that may be 0 (`--retry-limit 0`).
 *
 * @throws {InvalidArgumentError} for anything else.
 */
export function parseNonNegativeInteger(text: string): number {
  if (!/^\d+$/.test(text.trim())) {
    throw new InvalidArgumentError(`expected a whole number of at least 0, got "${text}".`);
  }
  return Number(text);
}

/**
 * Parses a non-negative decimal option (`--max-budget-usd 2.5`).
 *
 * @throws {InvalidArgumentError} for anything else.
 */
export function parseNonNegativeNumber(text: string): number {
  if (!/^(\d+(\.\d+)?|\.\d+)$/.test(text.trim())) {
    throw new InvalidArgumentError(`expected a number of at least 0 such as 2.5, got "${text}".`);
  }
  return Number(text);
}

/**
 * Checks a URL option (`--base-url`).
 *
 * @throws {InvalidArgumentError} when it is not an absolute http(s) URL.
 */
export function parseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // fall through to the error below
  }
  throw new InvalidArgumentError(`expected an http(s) URL such as http://127.0.0.1:8080/v1, got "${text}".`);
}
