// The alert shape every domain raises, the environment target's request forms, and `notify`, the direct sender
// kept for code not yet moved to raiseAlert (domains/alerts/raise.ts), which records an alert and routes it through
// the rules to every target, ALERT_URL included. `notify` POSTs to ALERT_URL alone, unrecorded:
//  - json (default): `{ title, message, tags, priority, event, at, ...data }` as application/json;
//  - ntfy (ALERT_FORMAT=ntfy): ntfy's publish form: the message as the plain-text body, `Title`, `Tags` (comma list)
//    and `Priority` (1-5) headers; ALERT_URL is then the topic URL (https://ntfy.sh/mytopic).
// ALERT_TOKEN, when set, goes as a bearer token (ntfy access tokens). Delivery runs in the background and is retried
// with backoff; `notify` returns at once, so a slow or dead alert endpoint never holds up the work that raised it.
import { request } from 'undici';
import { upstreamAgent } from './safe-fetch.ts';

export type AlertFormat = 'json' | 'ntfy';

export interface NotifyConfig {
  url: string | null;
  format: AlertFormat;
  token: string | null;
  /** Waits before each retry, in ms; its length is the number of retries. */
  retryDelaysMs?: number[];
  timeoutMs?: number;
}

export interface Alert {
  /** What happened, for machines: `service.down`, `service.up`, `speedtest.slow` ... */
  event: string;
  title: string;
  message: string;
  /** ntfy tags (emoji short codes or words). */
  tags?: string[];
  /** 1 (min) to 5 (max); 3 is the default. */
  priority?: number;
  /** Extra fields for the JSON form. */
  data?: Record<string, unknown>;
}

export interface DeliveryLog {
  warn(message: string): void;
}

const defaultDelays = [1_000, 5_000, 30_000];
// ALERT_URL is the owner's: it may be on the LAN, never cloud metadata.
const alertDispatcher = upstreamAgent();
const inFlight = new Set<Promise<boolean>>();

/** An HTTP header value: ntfy decodes RFC 2047 encoded words, so non-ASCII text survives. */
export function headerText(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

/** The request an alert becomes in the configured format. */
export function alertRequest(
  config: Pick<NotifyConfig, 'format' | 'token'>,
  alert: Alert,
  at = new Date(),
): { headers: Record<string, string>; body: string } {
  const auth: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
  const priority = Math.min(5, Math.max(1, Math.round(alert.priority ?? 3)));
  if (config.format === 'ntfy') {
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(alert.title),
      priority: String(priority),
      ...auth,
    };
    if (alert.tags?.length) headers.tags = headerText(alert.tags.join(','));
    return { headers, body: alert.message };
  }
  return {
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({
      event: alert.event,
      title: alert.title,
      message: alert.message,
      tags: alert.tags ?? [],
      priority,
      at: at.toISOString(),
      ...alert.data,
    }),
  };
}

async function attempt(url: string, timeoutMs: number, payload: ReturnType<typeof alertRequest>) {
  const response = await request(url, {
    method: 'POST',
    headers: payload.headers,
    body: payload.body,
    dispatcher: alertDispatcher,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body.dump();
  return response.statusCode;
}

async function deliver(config: NotifyConfig, alert: Alert, log: DeliveryLog): Promise<boolean> {
  const url = config.url;
  if (!url) return false;
  const payload = alertRequest(config, alert);
  const delays = config.retryDelaysMs ?? defaultDelays;
  const timeoutMs = config.timeoutMs ?? 10_000;
  for (let round = 0; ; round++) {
    let problem: string;
    try {
      const status = await attempt(url, timeoutMs, payload);
      if (status < 300) return true;
      problem = `HTTP ${status}`;
      // A 4xx other than 408 and 429 will not get better by asking again.
      if (status < 500 && status !== 408 && status !== 429) round = delays.length;
    } catch (error) {
      problem = (error as Error).message;
    }
    if (round >= delays.length) {
      log.warn(`alert "${alert.title}" not delivered: ${problem}`);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, delays[round]).unref());
  }
}

/** Sends an alert in the background when ALERT_URL is set; returns at once. */
export function notify(config: NotifyConfig, alert: Alert, log: DeliveryLog): void {
  if (!config.url) return;
  const delivery = deliver(config, alert, log).catch(() => false);
  inFlight.add(delivery);
  void delivery.finally(() => inFlight.delete(delivery));
}

/** Resolves when every alert sent so far has been delivered or given up (shutdown, tests). */
export async function alertsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.all([...inFlight]);
}
