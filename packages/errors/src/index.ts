export type { AttractorErrorOptions } from './attractor-error.js';
export { AttractorError, isErrorOf } from './attractor-error.js';
