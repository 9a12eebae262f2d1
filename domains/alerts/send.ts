// Sending one alert to one target, in the target's own shape:
//  - ntfy: POST {server}/{topic}, the Markdown message as the body; Title, Priority, Tags, Click, Actions, Markdown
//    headers; a token as `Authorization: Bearer` (https://docs.ntfy.sh/publish/);
//  - gotify: POST {server}/message with X-Gotify-Key, JSON title, message, priority (0-10) and extras
//    (client::display Markdown, client::notification click.url) (https://gotify.net/api-docs);
//  - webhook: a JSON body signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature =
//    "v1," + base64 HMAC-SHA256 of "id.timestamp.body" under the secret's base64 bytes);
//  - apprise: apprise-api's POST /notify (stateless, with urls) or /notify/{key}, JSON title, body, type, format;
//  - email: SMTP with nodemailer;
//  - json: the environment's ALERT_FORMAT=json body (lib/notify.ts).
// Every HTTP target is an owner-configured upstream: LAN addresses are fine, cloud metadata never (lib/upstream.ts).
// A failure is a SendError: `permanent` when asking again cannot help (a 4xx other than 408 and 429, an SMTP 5xx).
import { createHmac } from 'node:crypto';
import { lazy } from '../../lib/lazy.ts';
import { alertRequest, headerText } from '../../lib/notify.ts';
import { GuardError, type LookupFn, upstreamAddress } from '../../lib/safe-fetch.ts';
import { callUpstream, UpstreamError } from '../../lib/upstream.ts';
import type { AlertRecord } from './store.ts';
import type { OpenTarget } from './targets.ts';

/** An ntfy `http` action button (phone approvals use these). */
export interface AlertAction {
  action: 'http';
  label: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: string;
}

/** What a target is sent: the alert as recorded, its link made absolute (or null), its buttons typed. */
export interface Outgoing
  extends Pick<
    AlertRecord,
    'event' | 'title' | 'message' | 'priority' | 'tags' | 'link' | 'data' | 'resolves'
  > {
  /** Stable across retries of one delivery (the webhook-id). */
  deliveryId: string;
  alertId: string;
  actions: AlertAction[];
  at: Date;
}

export interface SendAnswer {
  /** The upstream's HTTP status or SMTP reply code; null when nothing answered. */
  status: number | null;
  answer: string;
}

export class SendError extends Error {
  readonly status: number | null;
  readonly permanent: boolean;
  constructor(message: string, status: number | null, permanent: boolean) {
    super(message);
    this.name = 'SendError';
    this.status = status;
    this.permanent = permanent;
  }
}

// The SMTP client is some megabytes at start for the few hubs that send email: loaded at the first email sent.
const mailer = lazy(async () => (await import('nodemailer')).default);

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** A value in ntfy's Actions header: quoted when it holds a comma, semicolon or quote. */
function actionValue(value: string): string {
  if (!/[,;"']/.test(value)) return value;
  return value.includes('"') ? `'${value.replace(/'/g, '\u2019')}'` : `"${value}"`;
}

/** ntfy's Actions header: `http, <label>, <url>, method=POST, body=...; ...` (at most three buttons). */
export function ntfyActions(actions: AlertAction[]): string {
  return actions
    .slice(0, 3)
    .map((action) =>
      [
        action.action,
        actionValue(action.label),
        actionValue(action.url),
        `method=${action.method ?? 'POST'}`,
        ...(action.body !== undefined ? [`body=${actionValue(action.body)}`] : []),
        'clear=true',
      ].join(', '),
    )
    .join('; ');
}

/** Gotify's priorities run 0-10 (8 and up sound on Android); ours 1-5. */
const gotifyPriority = (priority: number) => [0, 1, 3, 5, 8, 10][priority] ?? 5;

/** apprise's types: a recovery is a success, 5 a failure, 4 a warning. */
function appriseType(alert: Outgoing): 'info' | 'success' | 'warning' | 'failure' {
  if (alert.resolves) return 'success';
  if (alert.priority >= 5) return 'failure';
  return alert.priority >= 4 ? 'warning' : 'info';
}

const withLink = (alert: Outgoing) => (alert.link ? `${alert.message}\n\n${alert.link}` : alert.message);

/** The JSON every webhook receives: Standard Webhooks' { type, timestamp, data }. */
function webhookBody(alert: Outgoing): string {
  return JSON.stringify({
    type: alert.event,
    timestamp: alert.at.toISOString(),
    data: {
      alert_id: alert.alertId,
      event: alert.event,
      title: alert.title,
      message: alert.message,
      priority: alert.priority,
      tags: alert.tags,
      link: alert.link,
      resolves: alert.resolves,
      ...alert.data,
    },
  });
}

/** The Standard Webhooks signature headers of `body`. */
export function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}

async function post(
  url: string,
  request: { headers: Record<string, string>; body: string },
  timeoutMs: number,
): Promise<SendAnswer> {
  try {
    const answer = await callUpstream(url, { method: 'POST', ...request, timeoutMs });
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? '');
    return { status: answer.status, answer: text.slice(0, 500) };
  } catch (error) {
    const status = error instanceof UpstreamError ? error.status : null;
    const permanent = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
    // The answer's own words (Gotify's errorDescription, ntfy's error) tell the owner what to fix.
    const body = error instanceof UpstreamError ? error.body : undefined;
    const said = typeof body === 'string' ? body : body ? JSON.stringify(body) : '';
    const message = (error as Error).message;
    throw new SendError(
      said && !message.includes(said) ? `${message}: ${said.slice(0, 300)}` : message,
      status,
      permanent,
    );
  }
}

function httpRequest(
  target: OpenTarget,
  alert: Outgoing,
): { url: string; headers: Record<string, string>; body: string } {
  const f = target.fields as Record<string, string | null | undefined>;
  const bearer: Record<string, string> = f.token ? { authorization: `Bearer ${f.token}` } : {};
  switch (target.kind) {
    case 'ntfy': {
      const headers: Record<string, string> = {
        'content-type': 'text/markdown; charset=utf-8',
        title: headerText(alert.title),
        priority: String(alert.priority),
        markdown: 'yes',
        ...bearer,
      };
      if (alert.tags.length) headers.tags = headerText(alert.tags.join(','));
      if (alert.link) headers.click = alert.link;
      if (alert.actions.length) headers.actions = headerText(ntfyActions(alert.actions));
      const url = f.topic ? `${trimSlash(f.url as string)}/${f.topic}` : (f.url as string);
      return { url, headers, body: alert.message };
    }
    case 'gotify':
      return {
        url: `${trimSlash(f.url as string)}/message`,
        headers: { 'content-type': 'application/json', 'x-gotify-key': f.token as string },
        body: JSON.stringify({
          title: alert.title,
          message: alert.message,
          priority: gotifyPriority(alert.priority),
          extras: {
            'client::display': { contentType: 'text/markdown' },
            ...(alert.link ? { 'client::notification': { click: { url: alert.link } } } : {}),
          },
        }),
      };
    case 'webhook': {
      const body = webhookBody(alert);
      const signed = f.secret
        ? signWebhook(f.secret, `msg_${alert.deliveryId}`, Math.floor(Date.now() / 1000), body)
        : {};
      return { url: f.url as string, headers: { 'content-type': 'application/json', ...signed }, body };
    }
    case 'apprise': {
      const base = `${trimSlash(f.url as string)}/notify`;
      return {
        url: f.key ? `${base}/${f.key}` : base,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...(f.urls ? { urls: f.urls } : {}),
          title: alert.title,
          body: withLink(alert),
          type: appriseType(alert),
          format: 'markdown',
        }),
      };
    }
    case 'json': {
      const legacy = alertRequest(
        { format: 'json', token: f.token ?? null },
        {
          event: alert.event,
          title: alert.title,
          message: alert.message,
          tags: alert.tags,
          priority: alert.priority,
          data: { ...alert.data, link: alert.link },
        },
        alert.at,
      );
      return { url: f.url as string, ...legacy };
    }
    default:
      throw new Error(`no HTTP form for ${target.kind}`);
  }
}

async function sendMail(
  target: OpenTarget,
  alert: Outgoing,
  timeoutMs: number,
  lookup?: LookupFn,
): Promise<SendAnswer> {
  const f = target.fields as {
    host: string;
    port: number;
    tls: 'tls' | 'starttls' | 'none';
    user?: string | null;
    password?: string;
    from: string;
    to: string[];
  };
  const bare = f.host.replace(/^\[|\]$/g, '');
  // The name is looked up here, never to a cloud metadata address, and nodemailer dials the answer: given the name it
  // would resolve it again itself. TLS still presents and verifies the name.
  let address: string;
  try {
    address = await upstreamAddress(bare, lookup);
  } catch (error) {
    if (error instanceof GuardError) throw new SendError(`refused: ${error.message}`, null, true);
    const err = error as { code?: string; message: string };
    throw new SendError(`SMTP ${err.code ?? 'error'}: ${err.message}`.slice(0, 500), null, false);
  }
  const nodemailer = await mailer();
  const transport = nodemailer.createTransport({
    host: address,
    servername: address === bare ? undefined : bare,
    port: f.port,
    secure: f.tls === 'tls',
    requireTLS: f.tls === 'starttls',
    ignoreTLS: f.tls === 'none',
    auth: f.user ? { user: f.user, pass: f.password ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: f.from,
      to: f.to,
      subject: alert.title,
      text: withLink(alert),
      headers: { 'X-Hub-Event': alert.event, 'X-Priority': alert.priority >= 4 ? '1' : '3' },
    });
    const code = Number.parseInt(String(info.response ?? ''), 10);
    return {
      status: Number.isFinite(code) ? code : 250,
      answer: String(info.response ?? 'sent').slice(0, 500),
    };
  } catch (error) {
    const err = error as { responseCode?: number; code?: string; message: string };
    const status = err.responseCode ?? null;
    // The server's reply says what went wrong; a connection error says only its code (never the password).
    const reason =
      status !== null ? `SMTP ${status}: ${err.message}` : `SMTP ${err.code ?? 'error'}: ${err.message}`;
    throw new SendError(reason.slice(0, 500), status, status !== null && status >= 500);
  } finally {
    transport.close();
  }
}

/** Sends `alert` to `target`; a SendError when the target did not take it. */
export async function send(
  target: OpenTarget,
  alert: Outgoing,
  timeoutMs = 10_000,
  /** How an e-mail target's host name is looked up (the system's resolver; tests give their own). */
  lookup?: LookupFn,
): Promise<SendAnswer> {
  if (target.kind === 'email') return sendMail(target, alert, timeoutMs, lookup);
  const { url, headers, body } = httpRequest(target, alert);
  return post(url, { headers, body }, timeoutMs);
}
