// npm run bench: runs every benchmark in this folder (each bench/*.ts but this one), one after the other, each in
// its own process so one's database and memory never colour the next one's figures. Arguments naming a benchmark
// choose those; the others are passed on to each (`npm run bench -- search 1m`).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const all = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .sort();
const named = (arg: string) => all.includes(`${arg}.ts`);
const only = process.argv.slice(2).filter(named);
const passed = process.argv.slice(2).filter((arg) => !named(arg));
const benches = all.filter((file) => only.length === 0 || only.includes(file.replace(/\.ts$/, '')));

let failed = 0;
for (const file of benches) {
  console.log(`\n## bench/${file}`);
  const result = spawnSync(process.execPath, [path.join(here, file), ...passed], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.error(`bench/${file} failed (${result.signal ?? `exit ${result.status}`})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
