import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_LOCK_FILE } from '../file-run-lock.js';
import { createFileRunStore } from '../file-run-store.js';
import { createMemoryRunStore } from './memory-run-store.js';
import { deadProcessId, describeRunStoreContract, type RunStoreFixture } from './run-store-contract.js';

function fileFixture(fsync: boolean): RunStoreFixture {
  const logsRoot = mkdtempSync(join(tmpdir(), 'run-store-'));
  return {
    store: createFileRunStore({ logsRoot, fsync }),
    cleanup: async () => rmSync(logsRoot, { recursive: true, force: true }),
    // The holder record names a pid of this host that no longer exists: what `kill -9` of the holder leaves.
    killLockHolder: async () => {
      const path = join(logsRoot, RUN_LOCK_FILE);
      const holder = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeFileSync(path, JSON.stringify({ ...holder, pid: deadProcessId() }));
    },
  };
}

describeRunStoreContract('file store', () => fileFixture(false));
describeRunStoreContract('file store with fsync', () => fileFixture(true));
describeRunStoreContract('memory store', () => {
  const store = createMemoryRunStore();
  return {
    store,
    killLockHolder: async () => {
      if (store.lockHolder !== undefined) store.lockHolder = { ...store.lockHolder, pid: deadProcessId() };
    },
  };
});
