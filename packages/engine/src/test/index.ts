export type { TestClock, TestClockOptions } from './test-clock.js';
export { createTestClock } from './test-clock.js';
