#!/usr/bin/env node
// The `attractor` command. The CLI is compiled to ../dist by `pnpm build`; this small file is checked in so that
// the package manager can link the command at install time, before the first build. It loads the bundle of
// dist/bin.js (scripts/bundle-cli.mjs), which starts faster than the ~160 modules it replaces.
try {
  await import('../dist/attractor.mjs');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('attractor.mjs')) {
    process.stderr.write(
      'attractor: the CLI is not built yet. Run `pnpm build` at the repository root first.\n',
    );
    process.exit(2);
  }
  throw error;
}
