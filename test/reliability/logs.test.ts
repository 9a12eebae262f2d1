// The worker's log lines: no driver objects, and an expected job failure without its stack.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import t from 'tap';
import { workerLogger } from '../../plugins/jobs.ts';
import { PermanentJobError } from '../../worker/errors.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  return { logger: workerLogger(app.log), lines };
}

t.test('a refused capture is logged without a stack trace', async (t) => {
  const { logger, lines } = capture();
  const error = new PermanentJobError('the address 10.0.0.1 is not allowed');
  logger.error(
    `Failed task 1 (ingest.url, 2.00ms, attempt 1 of 5) with error '${error.message}':\n  ${error.stack}`,
    {
      failure: true,
      job: { id: '1', task_identifier: 'ingest.url', attempts: 1, payload: { capture_id: 'x' } },
      error,
    },
  );
  t.equal(lines.length, 1);
  const line = JSON.parse(lines[0]) as { msg: string; job: unknown };
  t.notMatch(line.msg, /\n/, 'one line, no stack');
  t.match(line.msg, /not allowed/);
  t.same(line.job, { id: '1', task: 'ingest.url', attempts: 1 });
});

t.test('a connection error does not dump the pg client', async (t) => {
  const { logger, lines } = capture();
  const error = Object.assign(new Error('Connection terminated unexpectedly'), {
    client: { connectionParameters: { user: 'hub', password: 'secret' }, _types: {} },
  });
  logger.error('PostgreSQL idle client generated error: Connection terminated unexpectedly', {
    error,
    client: { connectionParameters: { user: 'hub' } },
  });
  t.equal(lines.length, 1);
  t.notMatch(lines[0], /connectionParameters/);
  t.match(lines[0], /Connection terminated unexpectedly/);
});
