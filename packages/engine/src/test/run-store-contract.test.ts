import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunStore } from '../file-run-store.js';
import { createMemoryRunStore } from './memory-run-store.js';
import { describeRunStoreContract } from './run-store-contract.js';

describeRunStoreContract('file store', () =>
  createFileRunStore({ logsRoot: mkdtempSync(join(tmpdir(), 'run-store-')) }),
);
describeRunStoreContract('file store with fsync', () =>
  createFileRunStore({ logsRoot: mkdtempSync(join(tmpdir(), 'run-store-')), fsync: true }),
);
describeRunStoreContract('memory store', () => createMemoryRunStore());
