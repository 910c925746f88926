import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify, uniqueSlug } from '../src/index.js';

test('slugify lowercases and joins words with hyphens', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});

test('slugify strips accents', () => {
  assert.equal(slugify('Crème Brûlée à la carte'), 'creme-brulee-a-la-carte');
});

test('slugify honours a custom separator', () => {
  assert.equal(slugify('Graph based workflows', { separator: '_' }), 'graph_based_workflows');
});

test('slugify cuts at a word boundary when maxLength is given', () => {
  assert.equal(slugify('Define pipelines as directed graphs', { maxLength: 20 }), 'define-pipelines-as');
});

test('uniqueSlug appends the first free counter', () => {
  assert.equal(uniqueSlug('intro', new Set(['intro', 'intro-2'])), 'intro-3');
  assert.equal(uniqueSlug('fresh', new Set(['intro'])), 'fresh');
});
