/** A workspace package that is published to npm (see `publishedPackages`). */
export interface PublishedPackage {
  /** Its folder relative to the repository root, e.g. `packages/engine`. */
  readonly directory: string;
  /** Its npm name, e.g. `@attractor/engine`. */
  readonly name: string;
  /** Its parsed `package.json`. */
  readonly manifest: Readonly<Record<string, unknown>>;
}

/**
 * The published packages of the repository at `root`: not private and not ignored by changesets
 * (`.changeset/config.json`), `packages/*` then `apps/*`, each sorted by folder name.
 */
export function publishedPackages(root: string): PublishedPackage[];
