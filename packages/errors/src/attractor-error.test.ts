import { describe, expect, it } from 'vitest';
import { AttractorError, isErrorOf } from './attractor-error.js';

class FirstError extends AttractorError<'FIRST'> {
  override readonly name = 'FirstError';
  readonly detail: string;
  constructor(detail: string, cause?: unknown) {
    super({ code: 'FIRST', message: `first: ${detail}`, cause });
    this.detail = detail;
  }

  static override readonly isInstance = isErrorOf(FirstError);
}

class SecondError extends AttractorError<'SECOND'> {
  constructor() {
    super({ code: 'SECOND', message: 'second' });
  }

  static override readonly isInstance = isErrorOf(SecondError);
}

describe('AttractorError (CONTRIBUTING.md "Errors")', () => {
  it('carries the name, code, message, cause and fields of its subclass', () => {
    const cause = new Error('root');
    const error = new FirstError('x', cause);
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.message, error.detail, error.cause]).toEqual([
      'FirstError',
      'FIRST',
      'first: x',
      'x',
      cause,
    ]);
    expect(new SecondError().name).toBe('SecondError');
    expect('cause' in new SecondError()).toBe(false);
  });

  it('isInstance tells the classes apart by their marker, not by instanceof', () => {
    const first = new FirstError('x');
    expect(FirstError.isInstance(first)).toBe(true);
    expect(SecondError.isInstance(first)).toBe(false);
    expect(AttractorError.isInstance(first)).toBe(true);
    expect(AttractorError.isInstance(new Error('plain'))).toBe(false);
    expect(FirstError.isInstance(undefined)).toBe(false);
    // An error from another copy of the package: same marker, another class object.
    const copy = Object.defineProperty(new Error('copy'), Symbol.for('attractor.error.FirstError'), {
      value: true,
    });
    expect(FirstError.isInstance(copy)).toBe(true);
    expect([first, new SecondError(), new Error('plain')].filter(SecondError.isInstance)).toHaveLength(1);
  });

  it('keeps its markers out of JSON and of the enumerable keys', () => {
    const error = new FirstError('x');
    expect(Object.keys(error)).toEqual(['code', 'name', 'detail']);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'FIRST', name: 'FirstError', detail: 'x' });
  });
});
