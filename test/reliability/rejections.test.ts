// Unhandled rejections are judged: a database connection lost in the background is ridden out, anything else ends
// the process gracefully. Run in a child process, since the handler is process-wide.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { repoRoot } from '../helpers/process.ts';

const script = `
import { judgeUnhandledRejections } from ${JSON.stringify(path.join(repoRoot, 'lib', 'rejections.ts'))};
const say = (line) => process.stdout.write(line + '\\n');
judgeUnhandledRejections(
  () => ({ warn: (_o, message) => say('warn: ' + message), error: (_o, message) => say('error: ' + message) }),
  () => { say('shut down'); process.exit(0); },
);
Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
Promise.reject(Object.assign(new Error('terminating connection'), { code: '57P01' }));
setTimeout(() => {
  say('still running');
  Promise.reject(new TypeError('a bug'));
}, 50);
setTimeout(() => say('not reached'), 2000);
`;

t.test('connection failures are ridden out; any other rejection shuts down', async (t) => {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 10_000,
    env: { PATH: process.env.PATH ?? '' },
  });
  t.same(output.trim().split('\n'), [
    'warn: a database connection failed in the background; carrying on',
    'warn: a database connection failed in the background; carrying on',
    'still running',
    'error: shutting down after an unhandled rejection',
    'shut down',
  ]);
});
