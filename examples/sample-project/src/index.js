export { slugify, uniqueSlug } from './slugify.js';
