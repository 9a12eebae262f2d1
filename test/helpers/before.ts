// tap runs this before the test files. The work happens in a child process with tap's coverage tracking off,
// so the helper's code stays out of the coverage report (coverage is off for this project; see README).
import { execFileSync } from 'node:child_process';

execFileSync(process.execPath, [new URL('./cluster-start.ts', import.meta.url).pathname], {
  env: { ...process.env, OPS_HUB_TEST_RUN: String(process.ppid), _TAPJS_PROCESSINFO_COVERAGE_: '0' },
  stdio: 'inherit',
});
