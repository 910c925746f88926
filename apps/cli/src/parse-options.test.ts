import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { collectSet, parsePositiveInteger, parseSetOption, parseUrl } from './parse-options.js';

describe('parseSetOption (--set key=value)', () => {
  it('JSON-parses numbers, booleans, null, arrays and objects', () => {
    expect(parseSetOption('retries=3')).toEqual(['retries', 3]);
    expect(parseSetOption('ship=true')).toEqual(['ship', true]);
    expect(parseSetOption('owner=null')).toEqual(['owner', null]);
    expect(parseSetOption('tags=["a","b"]')).toEqual(['tags', ['a', 'b']]);
    expect(parseSetOption('limits={"cpu":2}')).toEqual(['limits', { cpu: 2 }]);
  });

  it('keeps anything that is not valid JSON as a string, including text with "="', () => {
    expect(parseSetOption('topic=release notes')).toEqual(['topic', 'release notes']);
    expect(parseSetOption('expr=a=b')).toEqual(['expr', 'a=b']);
    expect(parseSetOption('version=1.2.3')).toEqual(['version', '1.2.3']);
    expect(parseSetOption('empty=')).toEqual(['empty', '']);
  });

  it('rejects a value without a key', () => {
    expect(() => parseSetOption('novalue')).toThrow(InvalidArgumentError);
    expect(() => parseSetOption('=3')).toThrow(/expected key=value/);
  });

  it('collects repeated options, the last value of a key winning', () => {
    expect(collectSet('b=2', collectSet('a=1'))).toEqual({ a: 1, b: 2 });
    expect(collectSet('a=2', { a: 1 })).toEqual({ a: 2 });
  });
});

describe('parsePositiveInteger and parseUrl', () => {
  it('accepts whole numbers from 1 and rejects the rest', () => {
    expect(parsePositiveInteger('25')).toBe(25);
    for (const bad of ['0', '-1', '2.5', 'ten', ''])
      expect(() => parsePositiveInteger(bad)).toThrow(InvalidArgumentError);
  });

  it('accepts http(s) URLs only', () => {
    expect(parseUrl('http://127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080/v1');
    expect(() => parseUrl('localhost:8080')).toThrow(/expected an http\(s\) URL/);
    expect(() => parseUrl('ftp://example.org')).toThrow(InvalidArgumentError);
  });
});
