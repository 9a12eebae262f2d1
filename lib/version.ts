import { readFileSync } from 'node:fs';

/** The package's semver, the one source of the service version. */
export const version: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
