/**
 * The read-only queue view (`openRunQueueReader`), in a module of its own: `shared-locations.ts` loads it lazily, and
 * a bundle of `attractor runs` then holds the reader and `pg`, not pg-boss.
 */
export { openRunQueueReader, QueueUnavailableError } from '@attractor/worker';
