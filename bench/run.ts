// npm run bench: runs every benchmark in this folder (each bench/*.ts but this one), one after the other, each in
// its own process so one's database and memory never colour the next one's figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .filter((file) => only.length === 0 || only.includes(file.replace(/\.ts$/, '')))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n## bench/${file}`);
  const result = spawnSync(process.execPath, [path.join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${file} failed (${result.signal ?? `exit ${result.status}`})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
