#!/usr/bin/env node
// The `attractor` command. The CLI is compiled to ../dist by `pnpm build`; this small file is checked in so that
// the package manager can link the command at install time, before the first build.
try {
  await import('../dist/bin.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('bin.js')) {
    process.stderr.write(
      'attractor: the CLI is not built yet. Run `pnpm build` at the repository root first.\n',
    );
    process.exit(2);
  }
  throw error;
}
