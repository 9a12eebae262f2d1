import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { purgeClips } from '../../../domains/voice/clips.ts';
import { createAgent, type TestApp, testApp } from '../../helpers/app.ts';
import type { startUpstream } from '../../helpers/upstream.ts';

/** A short WAV made by the test: mono 16-bit PCM at 16 kHz, `seconds` long. */
function wav(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin(i / 8) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A multipart body the way a browser sends one. */
function form(fields: Record<string, string>, file?: { bytes: Buffer; name: string; type: string }) {
  const boundary = `----hubtest${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

function transcribe(ta: TestApp, audio: Buffer, fields: Record<string, string> = {}) {
  return ta.asOwner({
    method: 'POST',
    url: '/api/voice/transcribe',
    ...form(fields, { bytes: audio, name: 'clip.wav', type: 'audio/wav' }),
  });
}

/** Reads a multipart request the way the real servers do. */
async function formData(request: { headers: Record<string, unknown>; rawBody: Buffer }) {
  return new Request('http://fake/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type']) },
    body: new Uint8Array(request.rawBody),
  }).formData();
}

t.test('the OpenAI-compatible adapter: multipart file, model, json, bearer key', async (t) => {
  const seen: {
    fields: Record<string, string>;
    file: { type: string; size: number; name: string } | null;
    auth?: string;
  }[] = [];
  const server = await startRaw(t, async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/audio/transcriptions') {
      response.writeHead(404).end();
      return;
    }
    const data = await formData(request);
    const file = data.get('file') as File | null;
    const fields: Record<string, string> = {};
    for (const [key, value] of data.entries()) if (typeof value === 'string') fields[key] = value;
    seen.push({
      fields,
      file: file && { type: file.type, size: file.size, name: file.name },
      auth: request.headers.authorization as string,
    });
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ text: ' Turn on the lights. ' }));
  });
  const ta = await testApp(t, {
    env: {
      STT_PROVIDER: 'openai',
      STT_URL: `${server.url}/`,
      STT_MODEL: 'Systran/faster-whisper-small',
      STT_API_KEY: 'sk-local',
    },
  });
  const audio = wav(1.5);
  const answer = await transcribe(ta, audio, { language: 'en' });
  t.equal(answer.statusCode, 200, answer.body);
  t.same(answer.json(), { text: 'Turn on the lights.', language: 'en', duration_s: 1.5 });
  t.match(seen[0], {
    fields: { model: 'Systran/faster-whisper-small', response_format: 'json', language: 'en' },
    file: { type: 'audio/wav', size: audio.length },
    auth: 'Bearer sk-local',
  });
  t.notOk(answer.json().clip_id, 'retention is off by default');
  t.same(await ta.sql`select id from voice_clips`, []);
  t.same(await readdir(path.join(ta.dataDir, 'incoming')), [], 'the received audio is not kept');
});

t.test('the whisper.cpp adapter joins its segments; failures and timeouts are 502', async (t) => {
  let mode: 'ok' | 'error' | 'hang' = 'ok';
  const server = await startRaw(t, async (request, response) => {
    if (request.url !== '/inference') {
      response.writeHead(404).end();
      return;
    }
    const data = await formData(request);
    if (data.get('response_format') !== 'json' || !(data.get('file') instanceof File)) {
      response.writeHead(400).end(JSON.stringify({ error: 'bad request' }));
      return;
    }
    if (mode === 'hang') return;
    if (mode === 'error') {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'failed to process audio' }));
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ text: ' Hello world.\n This is a test.\n' }));
  });
  const ta = await testApp(t, {
    env: { STT_PROVIDER: 'whispercpp', STT_URL: server.url, STT_TIMEOUT_MS: '1000' },
  });
  const ok = await transcribe(ta, wav(0.5));
  t.same(ok.json(), { text: 'Hello world. This is a test.', language: null, duration_s: 0.5 });
  mode = 'error';
  const failed = await transcribe(ta, wav(0.5));
  t.equal(failed.statusCode, 502);
  t.match(failed.json(), { code: 'STT_FAILED', message: /500: failed to process audio/ });
  mode = 'hang';
  const slow = await transcribe(ta, wav(0.5));
  t.equal(slow.statusCode, 502);
  t.match(slow.json().message, /no answer within 1000 ms/);
});

t.test('input rules: not configured, not audio, too large, owner only', async (t) => {
  const none = await testApp(t, { env: { VOICE_MAX_BYTES: '4096' } });
  const notConfigured = await transcribe(none, wav(0.05));
  t.equal(notConfigured.statusCode, 503);
  t.equal(notConfigured.json().code, 'STT_NOT_CONFIGURED');
  const jpeg = Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
    Buffer.from('JFIF\0extra bytes'),
  ]);
  const notAudio = await transcribe(none, jpeg);
  t.equal(notAudio.statusCode, 415, 'a JPEG named clip.wav is refused by its bytes');
  t.equal(notAudio.json().code, 'AUDIO_UNSUPPORTED');
  const large = await transcribe(none, wav(1));
  t.equal(large.statusCode, 413);
  t.match(large.json().message, /VOICE_MAX_BYTES/);
  t.same(
    await readdir(path.join(none.dataDir, 'incoming')),
    [],
    'streamed to disk, and removed when refused',
  );
  const agent = await createAgent(none, { tier: 'owner' });
  const byAgent = await none.asAgent(agent.token, { method: 'GET', url: '/api/voice/clips' });
  t.equal(byAgent.statusCode, 403);
  t.equal((await none.anon({ method: 'GET', url: '/api/voice/settings' })).statusCode, 401);
});

const sentence = 'hello world this is a test';
const haveSpeechTools = ['espeak-ng', 'sox', 'pocketsphinx_continuous'].every((tool) =>
  ['/usr/bin', '/usr/local/bin'].some((dir) => existsSync(path.join(dir, tool))),
);

t.test('end to end on this machine: espeak-ng speaks, sox resamples, pocketsphinx transcribes', async (t) => {
  if (!haveSpeechTools) {
    t.fail('espeak-ng, sox and pocketsphinx are required (.ci/run installs them)');
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'voice-e2e-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  execFileSync('espeak-ng', ['-s', '140', '-w', path.join(dir, 'spoken.wav'), sentence]);
  execFileSync('sox', [
    '-R',
    path.join(dir, 'spoken.wav'),
    '-r',
    '16000',
    '-c',
    '1',
    '-b',
    '16',
    path.join(dir, 'spoken16.wav'),
  ]);
  const audio = await readFile(path.join(dir, 'spoken16.wav'));

  const clipsDir = path.join(dir, 'clips');
  const ta = await testApp(t, {
    env: {
      STT_PROVIDER: 'command',
      STT_COMMAND: 'pocketsphinx_continuous -infile',
      VOICE_CLIPS_DIR: clipsDir,
    },
  });
  const retain = await ta.asOwner({
    method: 'PUT',
    url: '/api/voice/settings',
    payload: { retain_clips: true, retention_days: 7 },
  });
  t.equal(retain.statusCode, 200);
  const answer = await transcribe(ta, audio);
  t.equal(answer.statusCode, 200, answer.body);
  const { text, clip_id, duration_s } = answer.json();
  const words = new Set(sentence.split(' '));
  const shared = String(text)
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => words.has(word));
  t.ok(shared.length >= 2, `the transcript "${text}" shares words with "${sentence}"`);
  t.ok(duration_s > 1 && duration_s < 5, `the duration comes from the WAV header (${duration_s} s)`);

  // The clip: the directory 0700, the file 0600, a row with the transcript.
  t.equal((await stat(clipsDir)).mode & 0o777, 0o700);
  const [row] = await ta.sql<{ file_name: string; transcript: string; size_bytes: number }[]>`
    select file_name, transcript, size_bytes from voice_clips where id = ${clip_id}`;
  t.equal(row.transcript, text);
  t.equal(row.size_bytes, audio.length);
  const file = path.join(clipsDir, row.file_name);
  t.equal((await stat(file)).mode & 0o777, 0o600);

  const list = await ta.asOwner({ method: 'GET', url: '/api/voice/clips?limit=10' });
  t.match(list.json(), {
    total: 1,
    limit: 10,
    offset: 0,
    items: [{ id: clip_id, content_type: 'audio/wav' }],
  });
  t.notOk('file_name' in list.json().items[0], 'where the file lives stays inside the hub');

  const whole = await ta.asOwner({ method: 'GET', url: `/api/voice/clips/${clip_id}/audio` });
  t.equal(whole.statusCode, 200);
  t.equal(whole.headers['accept-ranges'], 'bytes');
  t.equal(whole.headers['content-type'], 'audio/wav');
  t.equal(whole.rawPayload.length, audio.length);
  const part = await ta.asOwner({
    method: 'GET',
    url: `/api/voice/clips/${clip_id}/audio`,
    headers: { range: 'bytes=100-199' },
  });
  t.equal(part.statusCode, 206);
  t.equal(part.headers['content-range'], `bytes 100-199/${audio.length}`);
  t.same(part.rawPayload, audio.subarray(100, 200));
  const tail = await ta.asOwner({
    method: 'GET',
    url: `/api/voice/clips/${clip_id}/audio`,
    headers: { range: 'bytes=-10' },
  });
  t.same(tail.rawPayload, audio.subarray(audio.length - 10));
  const several = await ta.asOwner({
    method: 'GET',
    url: `/api/voice/clips/${clip_id}/audio`,
    headers: { range: 'bytes=0-9,100-109' },
  });
  t.equal(several.statusCode, 200, 'several ranges: the whole clip');
  t.equal(several.rawPayload.length, audio.length);
  const beyond = await ta.asOwner({
    method: 'GET',
    url: `/api/voice/clips/${clip_id}/audio`,
    headers: { range: `bytes=${audio.length}-` },
  });
  t.equal(beyond.statusCode, 416);
  t.equal(beyond.json().code, 'RANGE_NOT_SATISFIABLE');
  t.equal(beyond.headers['content-range'], `bytes */${audio.length}`);
  const backwards = await ta.asOwner({
    method: 'GET',
    url: `/api/voice/clips/${clip_id}/audio`,
    headers: { range: 'bytes=200-100' },
  });
  t.equal(backwards.statusCode, 416, 'a range that ends before it starts is not satisfiable');

  // A row whose file went missing is a clear 404.
  await unlink(file);
  const missing = await ta.asOwner({ method: 'GET', url: `/api/voice/clips/${clip_id}/audio` });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'VOICE_CLIP_FILE_MISSING');
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/voice/clips/${clip_id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/voice/clips/${clip_id}` })).statusCode, 404);
});

t.test('retention: a purge with an injected clock deletes old clips, file and row', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'voice-purge-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const server = await startRaw(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"note to self"}');
  });
  const ta = await testApp(t, { env: { STT_PROVIDER: 'openai', STT_URL: server.url, VOICE_CLIPS_DIR: dir } });
  await ta.asOwner({
    method: 'PUT',
    url: '/api/voice/settings',
    payload: { retain_clips: true, retention_days: 30 },
  });
  const first = (await transcribe(ta, wav(0.2))).json().clip_id;
  const second = (await transcribe(ta, wav(0.2))).json().clip_id;
  await ta.sql`update voice_clips set created_at = now() - interval '40 days' where id = ${first}`;
  const files = async () =>
    (await ta.sql<{ file_name: string }[]>`select file_name from voice_clips`).map((r) => r.file_name);
  const [firstFile] = (
    await ta.sql<{ file_name: string }[]>`select file_name from voice_clips where id = ${first}`
  ).map((r) => r.file_name);
  t.equal(await purgeClips(ta.sql, dir, 30, new Date()), 1);
  t.notOk(existsSync(path.join(dir, firstFile)), 'the old file is gone');
  t.same((await files()).length, 1);
  t.equal(
    await purgeClips(ta.sql, dir, 30, new Date(Date.now() + 31 * 86_400_000)),
    1,
    'a month later the other goes too',
  );
  t.same(await files(), []);
  t.ok(second);
  const bad = await ta.asOwner({
    method: 'PUT',
    url: '/api/voice/settings',
    payload: { retain_clips: true, retention_days: 0 },
  });
  t.equal(bad.statusCode, 400);
});

// A raw HTTP server that keeps the request body as bytes (multipart).
async function startRaw(
  t: Parameters<typeof startUpstream>[0],
  handler: (
    request: { method?: string; url?: string; headers: Record<string, unknown>; rawBody: Buffer },
    response: import('node:http').ServerResponse,
  ) => void | Promise<void>,
) {
  const http = await import('node:http');
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void handler(
        {
          method: request.method,
          url: request.url,
          headers: request.headers,
          rawBody: Buffer.concat(chunks),
        },
        response,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as import('node:net').AddressInfo;
  return { url: `http://127.0.0.1:${port}` };
}
