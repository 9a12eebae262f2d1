// Trying an integration's upstream once, the way its card or job will use it: Open-Meteo's forecast, Proxmox's
// /version, Shlink's health and one authenticated list call, a tiny silent sample to the speech-to-text server, the
// chat endpoint's model list, linkding's bookmark list. The outcome says what the upstream answered, or why nothing
// came, and how long it took.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HubError } from '../../lib/errors.ts';
import { callUpstream, UpstreamError } from '../../lib/upstream.ts';
import { dockerClient } from '../docker/client.ts';
import { pveClient } from '../proxmox/client.ts';
import { shlinkClient } from '../shlink/client.ts';
import { transcribe } from '../voice/stt.ts';
import { fetchForecast } from '../weather/open-meteo.ts';
import type { IntegrationSettingsOf } from './resolve.ts';
import type { IntegrationKind, TestResult } from './schema.ts';

type Check<K extends IntegrationKind> = (
  settings: IntegrationSettingsOf[K],
  timeoutMs: number,
) => Promise<string>;

/** 0.1 s of 16 kHz mono silence as a WAV file: the smallest sample a speech-to-text server transcribes. */
function silentWav(): Buffer {
  const samples = 1600;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

const checks: { [K in IntegrationKind]: Check<K> } = {
  async weather(settings, timeoutMs) {
    const weather = await fetchForecast(settings.url, settings, timeoutMs);
    return `Open-Meteo answered: ${weather.current.temperature ?? '?'}° at ${settings.latitude}, ${settings.longitude}`;
  },
  async proxmox(settings, timeoutMs) {
    const client = pveClient({ ...settings, timeoutMs });
    try {
      const version = await client.get<{ version?: string; release?: string }>('/version');
      return `Proxmox VE ${version?.version ?? version?.release ?? '(version not given)'}`;
    } finally {
      await client.close();
    }
  },
  async shlink(settings, timeoutMs) {
    const client = shlinkClient({ ...settings, timeoutMs });
    const health = await client.version();
    // Shlink's health needs no key: one listing call checks the key too.
    const recent = await client.recent(1);
    return `Shlink ${health.version ?? ''} (${health.status ?? 'status unknown'}), ${recent.total} short links`;
  },
  async stt(settings) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-stt-check-'));
    try {
      const file = path.join(dir, 'sample.wav');
      await writeFile(file, silentWav(), { mode: 0o600 });
      await transcribe(settings, {
        file,
        type: { contentType: 'audio/wav', extension: 'wav' },
        language: null,
      });
      return 'the speech-to-text server transcribed a sample';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  async assistant(settings, timeoutMs) {
    if (settings.runner !== 'openai') return 'a command runner: nothing to reach';
    const answer = await callUpstream(`${settings.url}/models`, {
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      timeoutMs,
    });
    const models = ((answer.body as { data?: { id?: string }[] } | null)?.data ?? []).map(
      (model) => model.id,
    );
    return models.includes(settings.model)
      ? `the endpoint serves ${settings.model}`
      : `the endpoint answered; ${settings.model} is not among its ${models.length} listed models`;
  },
  async linkding(settings, timeoutMs) {
    const answer = await callUpstream(`${settings.url.replace(/\/+$/, '')}/api/bookmarks/?limit=1`, {
      headers: { authorization: `Token ${settings.token}` },
      timeoutMs,
    });
    const count = (answer.body as { count?: number } | null)?.count;
    return `linkding answered: ${count ?? 'some'} bookmarks`;
  },
  async karakeep() {
    return 'nothing to reach: Karakeep sends its deliveries to /api/ingest/karakeep with this secret';
  },
  async docker(settings, timeoutMs) {
    const client = dockerClient(settings, timeoutMs);
    try {
      const version = await client.version();
      return `Docker ${version.Version ?? '(version not given)'} (API ${version.ApiVersion ?? '?'}) on ${version.Os ?? '?'}/${version.Arch ?? '?'}`;
    } finally {
      await client.close();
    }
  },
};

/** The upstream's HTTP status in a failure, when it answered. */
function statusOf(error: unknown): number | null {
  if (error instanceof UpstreamError) return error.status;
  if (error instanceof HubError) {
    const upstream = error.extra?.upstream as { status?: number | null } | undefined;
    if (typeof upstream?.status === 'number') return upstream.status;
    const said = /answered (\d{3})/.exec(error.message);
    return said ? Number(said[1]) : null;
  }
  return null;
}

export async function checkIntegration<K extends IntegrationKind>(
  kind: K,
  settings: IntegrationSettingsOf[K],
  timeoutMs: number,
): Promise<TestResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  // The whole check is held to the timeout, name resolution included: a Test button never hangs on a name that
  // does not resolve.
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs + 500);
  });
  try {
    const message = await Promise.race([(checks[kind] as Check<K>)(settings, timeoutMs), deadline]);
    // Every check but Karakeep's ends with a 2xx answer (its clients throw on anything else).
    return { ok: true, status: kind === 'karakeep' ? null : 200, message, latency_ms: latency() };
  } catch (error) {
    return { ok: false, status: statusOf(error), message: (error as Error).message, latency_ms: latency() };
  } finally {
    clearTimeout(timer);
  }
}
