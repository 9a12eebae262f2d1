// Assistant benchmark: how quickly a turn's stream starts and passes on the runner's first output, for both runners.
// For each turn: the time from the request to the first byte of the event stream, and from the runner's first output
// (stamped by the runner itself) to the `message` event carrying it reaching the client. Target: under 50 ms beyond
// the runner's own first output. The command runner is a small Node program (its start-up is the runner's own time);
// the OpenAI-compatible runner is a local server streaming one delta.
// Sizes: BENCH_TURNS (per runner, default 30).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { scratchDatabase } from './lib/database.ts';

const turns = Number(process.env.BENCH_TURNS ?? 30);
const ownerToken = 'bench-owner-token-0123456789abcdef';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function startModel(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (body: unknown) => response.write(`data: ${JSON.stringify(body)}\n\n`);
    chunk({
      choices: [{ index: 0, delta: { role: 'assistant', content: `at ${Date.now()}` }, finish_reason: null }],
    });
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => server.close(),
  };
}

async function measure(name: string, env: Record<string, string>, url: string) {
  const database = await scratchDatabase(`assistant-${name}`);
  const sql = createSql(database.url, { warn: () => undefined });
  await migrate(sql);
  const config = loadConfig({
    OWNER_TOKEN: ownerToken,
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join('/tmp', `bench-${name}`),
    ...env,
  });
  const app = await buildApp({
    config,
    sql,
    databaseUrl: database.url,
    ownerToken,
    worker: 'off',
    cron: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const firstByte: number[] = [];
  const beyondRunner: number[] = [];
  try {
    for (let i = 0; i < turns + 3; i++) {
      const started = Date.now();
      const response = await fetch(`${base}/api/assistant/turn`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: `turn ${i}`, view: null }),
      });
      const reader = response.body?.getReader();
      if (!reader) throw new Error('no stream');
      const decoder = new TextDecoder();
      let text = '';
      let first = 0;
      let message = 0;
      let stamped = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (!first) first = Date.now();
        text += decoder.decode(value, { stream: true });
        const match = /event: message\ndata: \{"text":"at (\d+)"\}/.exec(text);
        if (match && !message) {
          message = Date.now();
          stamped = Number(match[1]);
        }
      }
      if (!message) throw new Error(`no message event in: ${text.slice(0, 300)}`);
      // The first few turns warm the runner's and the hub's code paths up.
      if (i >= 3) {
        firstByte.push(first - started);
        beyondRunner.push(message - stamped);
      }
    }
  } finally {
    await app.close();
    await endSql(sql);
    await database.close();
  }
  console.log(
    `${name}: first SSE byte p50 ${percentile(firstByte, 50)} ms, p95 ${percentile(firstByte, 95)} ms; ` +
      `first message beyond the runner's own output p50 ${percentile(beyondRunner, 50)} ms, ` +
      `p95 ${percentile(beyondRunner, 95)} ms (target < 50 ms) over ${turns} turns`,
  );
  return url;
}

const runnerProgram = path.join(import.meta.dirname, 'lib', 'quick-assistant.ts');
await measure(
  'command',
  { ASSISTANT_RUNNER: 'command', ASSISTANT_COMMAND: `"${process.execPath}" "${runnerProgram}"` },
  '',
);
const model = await startModel();
await measure(
  'openai',
  { ASSISTANT_RUNNER: 'openai', ASSISTANT_OPENAI_URL: model.url, ASSISTANT_MODEL: 'bench' },
  model.url,
);
model.close();
