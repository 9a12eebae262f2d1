// Upload memory benchmark: a real hub process (`npm start`, its own data directory and embedded database) and a
// suggest-tier agent sending BENCH_UPLOADS (30) uploads of BENCH_UPLOAD_MB (24) MB at once to
// POST /api/capture/upload, each a pending change whose file waits on disk. Then the owner's Approvals screen asks
// GET /api/pending-changes?status=pending&limit=100. The resident set of the hub's Node process is sampled every
// 100 ms: idle before, the peak during, and BENCH_SETTLE_SECONDS (60) after. Targets (exit 1 otherwise): the peak
// under idle + 200 MB, and after the pause within 20% of idle. The request bodies are generated as they are sent, so
// this process holds none of them whole either. Linux only (/proc).
//
// For reference, the same bodies are then sent to a bare Node HTTP server (node:http, same heap flags as `npm start`)
// that only streams each body to a file: what the platform itself keeps resident after such a burst (memory the
// C heap holds after the socket buffers are freed; a collection gives none of it back) is printed beside the hub's.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { until } from '../test/helpers/process.ts';
import { mb, ownerToken, peakSampler, sleep, startHub, steadyRssMb } from './lib/hub.ts';

const uploads = Number(process.env.BENCH_UPLOADS ?? 30);
const uploadMb = Number(process.env.BENCH_UPLOAD_MB ?? 24);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 60);
const peakMargin = 200;
const afterMargin = 0.2;
const boundary = '----ops-hub-bench-upload';

/** `bytes` of text, produced 64 KiB at a time between `head` and `tail`. */
function textBody(index: number, bytes: number, head = '', tail = ''): Readable {
  const line = Buffer.from(`upload ${index}: the quick brown fox jumps over the lazy dog\n`);
  const chunk = Buffer.alloc(64 * 1024);
  for (let at = 0; at < chunk.length; at += line.length) line.copy(chunk, at);
  return Readable.from(
    (function* () {
      if (head) yield Buffer.from(head);
      for (let sent = 0; sent < bytes; sent += chunk.length) {
        yield chunk.subarray(0, Math.min(chunk.length, bytes - sent));
      }
      if (tail) yield Buffer.from(tail);
    })(),
  );
}

/** A multipart body of space_id and a text file of `bytes`. */
function uploadBody(spaceId: string, index: number, bytes: number): Readable {
  return textBody(
    index,
    bytes,
    `--${boundary}\r\nContent-Disposition: form-data; name="space_id"\r\n\r\n${spaceId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes-${index}.txt"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
    `\r\n--${boundary}--\r\n`,
  );
}

/** The bare server: each request body streamed to a file of its own, then 200. */
const bareServer = `
const http = require('node:http');
const { createWriteStream } = require('node:fs');
const { pipeline } = require('node:stream/promises');
let n = 0;
const server = http.createServer(async (request, response) => {
  await pipeline(request, createWriteStream(require('node:path').join(process.argv[1], String(n++))));
  response.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** The bare server's figures for the same burst: idle, peak and after the pause, in MB. */
async function bareFigures(bytes: number): Promise<{ idle: number; peak: number; after: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-bare-'));
  const child = spawn(
    process.execPath,
    ['--max-semi-space-size=4', '--max-old-space-size=512', '-e', bareServer, dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    let output = '';
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
    });
    const port = await until('the bare server', async () => Number(output.trim()) || undefined);
    const pid = child.pid ?? 0;
    await sleep(5_000);
    const idle = await steadyRssMb(pid);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: uploads });
    const sampler = peakSampler(pid);
    await Promise.all(
      Array.from({ length: uploads }, async (_, index) => {
        const response = await pool.request({ method: 'POST', path: '/', body: textBody(index, bytes) });
        await response.body.text();
      }),
    );
    const peak = await sampler.stop();
    await pool.close();
    await sleep(settleSeconds * 1000);
    return { idle, peak, after: await steadyRssMb(pid) };
  } finally {
    child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

async function json(pool: Pool, method: 'GET' | 'POST' | 'PUT', path: string, token: string, body?: unknown) {
  const response = await pool.request({
    method,
    path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
  return { value: JSON.parse(text) as Record<string, unknown>, bytes: Buffer.byteLength(text) };
}

async function main(): Promise<boolean> {
  const hub = await startHub();
  const { pid } = hub;
  const pool = new Pool(hub.origin, { connections: uploads + 2 });
  try {
    const space = (await json(pool, 'POST', '/api/spaces', ownerToken, { name: 'Bench' })).value;
    const agent = (await json(pool, 'POST', '/api/agents', ownerToken, { name: 'uploader', tier: 'suggest' }))
      .value;
    const token = String(
      (await json(pool, 'POST', '/api/agent-tokens', ownerToken, { agent_id: agent.id })).value.token,
    );
    // Room for the whole burst: the default quota (256 MB) would refuse a third of it with 429.
    await json(pool, 'PUT', '/api/settings/pending_quota', ownerToken, {
      value: { max_changes: uploads * 2, max_bytes: Math.round(uploads * (uploadMb + 1) * 1024 * 1024) },
    });
    await sleep(10_000);
    const idle = await steadyRssMb(pid);

    const sampler = peakSampler(pid);
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: uploads }, async (_, index) => {
        const response = await pool.request({
          method: 'POST',
          path: '/api/capture/upload',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
          },
          body: uploadBody(String(space.id), index, Math.round(uploadMb * 1024 * 1024)),
        });
        const text = await response.body.text();
        if (response.statusCode !== 202) throw new Error(`upload ${index}: ${response.statusCode} ${text}`);
        return response.statusCode;
      }),
    );
    const uploadSeconds = (performance.now() - started) / 1000;
    const list = await json(pool, 'GET', '/api/pending-changes?status=pending&limit=100', ownerToken);
    const peak = await sampler.stop();
    await sleep(settleSeconds * 1000);
    const after = await steadyRssMb(pid);

    const peakOk = peak <= idle + peakMargin;
    const afterOk = after <= idle * (1 + afterMargin);
    console.log(`npm start: ${await hub.command()} (embedded database)`);
    console.log(`idle                       ${mb(idle)}`);
    console.log(
      `peak                       ${mb(peak)}  target <= ${mb(idle + peakMargin)} (idle + ${peakMargin} MB): ${peakOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `                           (${statuses.length} concurrent ${uploadMb} MB uploads by a suggest-tier agent, all 202, ` +
        `in ${uploadSeconds.toFixed(1)} s; then the pending list: ${list.value.total} changes in ${list.bytes} bytes)`,
    );
    console.log(
      `${settleSeconds} s after               ${mb(after)}  target <= ${mb(idle * (1 + afterMargin))} (idle + 20%): ${afterOk ? 'ok' : 'MISSED'}`,
    );
    await pool.close();
    await hub.stop();
    const bare = await bareFigures(Math.round(uploadMb * 1024 * 1024));
    const grew = (figures: { idle: number; after: number }) =>
      `${mb(figures.after - figures.idle)} (${Math.round((figures.after / figures.idle - 1) * 100)}%)`;
    console.log(
      `for reference, a bare node:http server streaming the same bodies to files: idle ${mb(bare.idle)}, ` +
        `peak ${mb(bare.peak)}, ${settleSeconds} s after ${mb(bare.after)}`,
    );
    console.log(`kept after the pause: the hub ${grew({ idle, after })}, the bare server ${grew(bare)}`);
    return peakOk && afterOk;
  } finally {
    await pool.close().catch(() => undefined);
    await hub.stop().catch(() => undefined);
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
