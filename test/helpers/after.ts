// tap runs this after the test files. The work happens in a child process without tap's coverage hooks, so
// the helper's own code stays out of the coverage report (coverage is off for this project; see README).
import { execFileSync } from 'node:child_process';

const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NODE_|_?TAP)/i.test(name)));
execFileSync(process.execPath, [new URL('./cluster-stop.ts', import.meta.url).pathname], {
  env: { ...env, OPS_HUB_TEST_RUN: String(process.ppid) },
  stdio: 'inherit',
});
