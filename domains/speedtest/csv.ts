// Speed-test history as CSV (RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled).
import type { SpeedtestResult } from './schema.ts';

const fields = [
  'measured_at',
  'status',
  'download_mbps',
  'upload_mbps',
  'ping_ms',
  'jitter_ms',
  'packet_loss_pct',
  'server_id',
  'server_name',
  'server_location',
  'isp',
  'result_url',
  'bytes_sent',
  'bytes_received',
  'below_threshold',
  'trigger',
  'error',
] as const satisfies readonly (keyof SpeedtestResult)[];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Date ? value.toISOString() : String(value);
  // A leading = + - @ would be run as a formula by a spreadsheet: quote it with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(text) && Number.isNaN(Number(text)) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function historyCsv(items: SpeedtestResult[]): string {
  const lines = [fields.join(',')];
  for (const item of items) lines.push(fields.map((field) => cell(item[field])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
