import { readFileSync } from 'node:fs';

/** The text of `test/fixtures/<name>`. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}
