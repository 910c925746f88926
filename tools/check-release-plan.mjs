#!/usr/bin/env node
// Checks the release plan that the pending changesets make (CONTRIBUTING.md "Build and release"), so that a
// broken plan is found in CI and not on release day: every `.changeset/*.md` must parse (a formatter once
// turned front matter into a Markdown heading), and while the packages are pre-1.0 no package may be bumped
// to a new major (a `workspace:^` peer dependency on a 0.x package once turned every minor bump into 1.0.0).
// Run by `pnpm test` and `pnpm lint`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const directory = mkdtempSync(join(tmpdir(), 'attractor-release-plan-'));
const output = join(directory, 'plan.json');
try {
  try {
    execFileSync('pnpm', ['exec', 'changeset', 'status', `--output=${output}`], { stdio: 'pipe' });
  } catch (error) {
    const text = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    console.error(`check-release-plan: \`changeset status\` failed:\n${text.trim()}`);
    process.exit(1);
  }
  const plan = JSON.parse(readFileSync(output, 'utf8'));
  const majors = plan.releases.filter(
    (release) => release.type === 'major' && Number(release.oldVersion.split('.')[0]) === 0,
  );
  if (majors.length > 0) {
    console.error(
      `check-release-plan: the pending changesets would release ${majors
        .map((release) => `${release.name} ${release.oldVersion} -> ${release.newVersion}`)
        .join(
          ', ',
        )}.\nPre-1.0 packages take minor bumps; a major usually comes from a peer dependency whose ` +
        'range excludes the next version (use "workspace:>=0.0.0 <1.0.0" for peers on @attractor/* packages).',
    );
    process.exit(1);
  }
  const bumped = plan.releases.filter((release) => release.type !== 'none');
  console.log(`check-release-plan: ${bumped.length} package(s) in the plan, none to a new major.`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
