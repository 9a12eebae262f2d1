// Reading what a speed-test program printed. Two formats are recognised:
// - Ookla's CLI (`speedtest --format=json`): bandwidth in bytes per second (Mbps = bandwidth × 8 / 1e6), ping and
//   jitter in ms, packetLoss in % (absent on some servers), server, isp, result.url. Versions 1.0 and 1.2 differ in
//   extras (1.2 adds latency details and result.persisted); the fields read here are in both. Log lines
//   `{"type":"log","level":"error",...}` may come on stderr even when stdout holds a result.
// - speedtest-cli (`speedtest-cli --json`, Debian's package): download and upload in bits per second, ping in ms,
//   server.sponsor/name/country/host/id, client.isp, bytes_sent, bytes_received, share (an image URL or null).
import { isWebUrl } from '../../lib/input.ts';
import type { SpeedtestResult } from './schema.ts';

export type Measurement = Pick<
  SpeedtestResult,
  | 'download_mbps'
  | 'upload_mbps'
  | 'ping_ms'
  | 'jitter_ms'
  | 'packet_loss_pct'
  | 'server_id'
  | 'server_name'
  | 'server_location'
  | 'server_host'
  | 'isp'
  | 'result_url'
  | 'bytes_sent'
  | 'bytes_received'
> & { format: 'ookla' | 'speedtest-cli'; measured_at: Date | null };

type Json = Record<string, unknown>;

function object(value: unknown): Json | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
}

function number(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A link the program printed, kept only when it is an http or https URL (it is shown as a link). */
function webLink(value: unknown): string | null {
  const link = text(value);
  return link !== null && isWebUrl(link) ? link : null;
}

function round(value: number | null, digits = 3): number | null {
  if (value === null) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

/** JSON documents in the output: the whole text, or one per line (jsonl, log lines mixed in). */
function documents(output: string): Json[] {
  const whole = output.trim();
  if (whole === '') return [];
  try {
    const parsed = object(JSON.parse(whole));
    if (parsed) return [parsed];
  } catch {
    // Not one document: read it line by line.
  }
  const found: Json[] = [];
  for (const line of whole.split(/\r?\n/)) {
    try {
      const parsed = object(JSON.parse(line));
      if (parsed) found.push(parsed);
    } catch {
      // A line of text between the JSON lines.
    }
  }
  return found;
}

const mbpsFromBytes = (bandwidth: number | null) => (bandwidth === null ? null : (bandwidth * 8) / 1_000_000);
const mbpsFromBits = (bits: number | null) => (bits === null ? null : bits / 1_000_000);

function fromOokla(doc: Json): Measurement {
  const ping = object(doc.ping) ?? {};
  const download = object(doc.download) ?? {};
  const upload = object(doc.upload) ?? {};
  const server = object(doc.server) ?? {};
  const result = object(doc.result) ?? {};
  const location = [text(server.location), text(server.country)].filter(Boolean).join(', ');
  return {
    format: 'ookla',
    measured_at: date(doc.timestamp),
    download_mbps: round(mbpsFromBytes(number(download.bandwidth))),
    upload_mbps: round(mbpsFromBytes(number(upload.bandwidth))),
    ping_ms: round(number(ping.latency)),
    jitter_ms: round(number(ping.jitter)),
    packet_loss_pct: round(number(doc.packetLoss)),
    server_id: text(server.id),
    server_name: text(server.name),
    server_location: location || null,
    server_host: text(server.host),
    isp: text(doc.isp),
    result_url: webLink(result.url),
    bytes_sent: number(upload.bytes),
    bytes_received: number(download.bytes),
  };
}

function fromSpeedtestCli(doc: Json): Measurement {
  const server = object(doc.server) ?? {};
  const client = object(doc.client) ?? {};
  const location = [text(server.name), text(server.country)].filter(Boolean).join(', ');
  return {
    format: 'speedtest-cli',
    measured_at: date(doc.timestamp),
    download_mbps: round(mbpsFromBits(number(doc.download))),
    upload_mbps: round(mbpsFromBits(number(doc.upload))),
    ping_ms: round(number(doc.ping)),
    jitter_ms: null,
    packet_loss_pct: null,
    server_id: text(server.id),
    server_name: text(server.sponsor) ?? text(server.name),
    server_location: location || null,
    server_host: text(server.host),
    isp: text(client.isp),
    result_url: webLink(doc.share),
    bytes_sent: number(doc.bytes_sent),
    bytes_received: number(doc.bytes_received),
  };
}

export type ParseOutcome = { ok: true; measurement: Measurement } | { ok: false; error: string };

/** The error messages of Ookla's log lines (`{"type":"log","level":"error","message":...}`) in a text. */
function loggedErrors(output: string): string[] {
  return documents(output)
    .filter((doc) => doc.type === 'log' && doc.level === 'error' && typeof doc.message === 'string')
    .map((doc) => String(doc.message));
}

/** A measurement from standard output; when there is none, the best error the program gave. */
export function parseSpeedtestOutput(stdout: string, stderr: string): ParseOutcome {
  for (const doc of documents(stdout)) {
    if (doc.type === 'result' || (object(doc.download) && 'bandwidth' in (object(doc.download) ?? {}))) {
      return { ok: true, measurement: fromOokla(doc) };
    }
    if (typeof doc.download === 'number' || typeof doc.upload === 'number') {
      return { ok: true, measurement: fromSpeedtestCli(doc) };
    }
  }
  const errors = [...loggedErrors(stdout), ...loggedErrors(stderr)];
  if (errors.length > 0) return { ok: false, error: errors.join('; ') };
  const said = (stderr.trim() || stdout.trim()).split(/\r?\n/).slice(-3).join(' ').slice(0, 300);
  return { ok: false, error: said ? `no result in the output: ${said}` : 'the program printed no result' };
}
