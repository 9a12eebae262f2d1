// The one multipart reader: capture uploads, icon sets and voice answer the same mistakes with the same codes, and a
// file already on disk is removed whatever fails. Driven over real HTTP multipart bodies, parsed by
// @fastify/multipart as the routes parse them.
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import t from 'tap';
import { HubError } from '../../lib/errors.ts';
import { clearIncoming, incomingLeftoverMs, readForm } from '../../lib/incoming.ts';

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-incoming-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));

const app = Fastify();
await app.register(multipart);
app.post('/form', async (request, reply) => {
  try {
    const form = await readForm(request.parts(), {
      dataDir,
      maxBytes: 16,
      limitName: 'TEST_MAX_BYTES',
      fields: ['title'],
      onField: (_name, value) => {
        if (value === 'refused') throw new HubError('BAD_REQUEST', 'title refused');
      },
    });
    const bytes = await readFile(form.file.path, 'utf8');
    await rm(form.file.path);
    return { fields: form.fields, bytes, size: form.file.size };
  } catch (error) {
    if (!(error instanceof HubError)) throw error;
    return reply.status(error.statusCode).send({ code: error.code, message: error.message });
  }
});
t.teardown(() => app.close());

function body(parts: { name: string; value: string; filename?: string }[]) {
  const boundary = 'hubboundary';
  const text = parts
    .map(({ name, value, filename }) => {
      const disposition = `form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`;
      const type = filename ? '\r\nContent-Type: text/plain' : '';
      return `--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n${value}\r\n`;
    })
    .join('');
  return {
    payload: `${text}--${boundary}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function send(parts: { name: string; value: string; filename?: string }[]) {
  const response = await app.inject({ method: 'POST', url: '/form', ...body(parts) });
  return { status: response.statusCode, ...response.json() };
}

const incoming = () => readdir(path.join(dataDir, 'incoming')).catch(() => []);

t.test('a form with its fields and one file is read, the file streamed to disk', async (t) => {
  const read = await send([
    { name: 'title', value: '  Notes  ' },
    { name: 'file', value: 'hello', filename: 'a.txt' },
  ]);
  t.same(read, { status: 200, fields: { title: 'Notes' }, bytes: 'hello', size: 5 });
});

t.test('the same mistakes get the same answers, and no file is left behind', async (t) => {
  const file = { name: 'file', value: 'hello', filename: 'a.txt' };
  t.match(await send([{ ...file, name: 'upload' }]), {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'the file field is named "file"',
  });
  t.match(await send([file, { name: 'colour', value: 'red' }]), {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'unknown field "colour" (title, file)',
  });
  t.match(await send([{ name: 'title', value: 'no file' }]), {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'file is required',
  });
  t.match(await send([file, { name: 'title', value: 'refused' }]), { status: 400, message: 'title refused' });
  t.match(await send([{ ...file, value: 'x'.repeat(17) }]), {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /TEST_MAX_BYTES \(16 bytes\)/,
  });
  t.same(await incoming(), [], 'every received file was removed');
});

t.test(
  'at start, alone: every leftover goes; beside other processes: only those unwritten for long',
  async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-incoming-'));
    t.teardown(() => rm(dataDir, { recursive: true, force: true }));
    const dir = path.join(dataDir, 'incoming');
    await mkdir(dir);
    await writeFile(path.join(dir, 'receiving'), 'a sibling process is writing this');
    await writeFile(path.join(dir, 'abandoned'), 'a process died while writing this');
    const old = new Date(Date.now() - incomingLeftoverMs - 60_000);
    await utimes(path.join(dir, 'abandoned'), old, old);

    t.equal(await clearIncoming(dataDir, incomingLeftoverMs), 1);
    t.same(await readdir(dir), ['receiving'], "another process's upload in progress stays");
    t.equal(await clearIncoming(dataDir), 1);
    t.same(await readdir(dir), []);
  },
);
