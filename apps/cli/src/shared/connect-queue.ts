/**
 * The queue client (`connectRunQueue`, on pg-boss), in a module of its own: `shared-locations.ts` loads it lazily, so
 * that only the commands that send jobs load pg-boss.
 */
export { connectRunQueue, QueueUnavailableError } from '@attractor/worker';
