#!/usr/bin/env node
// The `attractor` command. The CLI is compiled to ../dist by `pnpm build`; this small file is checked in so that
// the package manager can link the command at install time, before the first build. It loads the bundle of
// dist/bin.js (scripts/bundle-cli.mjs), which starts faster than the ~160 modules it replaces.
// It must parse and run on any Node, so that an old one is told what to install instead of failing on syntax or on
// an API it lacks: keep it plain JavaScript, and keep REQUIRED_NODE in step with `engines.node`
// (22.12: what commander 15 and pg-boss 12 declare in their own engines fields).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Ctrl-C from the first line on exits with 130 (not by the signal, which a caller sees as a crash): until the bundle
// has installed its own handler (src/bin.ts), this one does.
const exitOnEarlyInterrupt = () => process.exit(130);
process.on('SIGINT', exitOnEarlyInterrupt);

const REQUIRED_NODE = '22.12';
const [requiredMajor, requiredMinor] = REQUIRED_NODE.split('.').map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < requiredMajor || (major === requiredMajor && minor < requiredMinor)) {
  // The README's set-up puts Node 24 in .tools/node24 at the repository root, in front of PATH for one shell only.
  const repository = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const node24 = join(repository, '.tools', 'node24', 'node_modules', 'node', 'bin');
  const hint = existsSync(join(repository, '.tools', 'node24'))
    ? ` This repository has Node 24 in .tools/node24: run export PATH="${node24}:$PATH" (in every new shell).`
    : '';
  process.stderr.write(
    `attractor: needs Node.js ${REQUIRED_NODE} or newer, found ${process.versions.node}; install Node.js 24 LTS.${hint}\n`,
  );
  process.exit(2);
}
try {
  await import('../dist/attractor.mjs');
  process.off('SIGINT', exitOnEarlyInterrupt);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('attractor.mjs')) {
    process.stderr.write(
      'attractor: the CLI is not built yet. Run `pnpm build` at the repository root first.\n',
    );
    process.exit(2);
  }
  throw error;
}
