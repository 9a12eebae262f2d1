// The alert shape every domain raises (domains/alerts/raise.ts records and routes it) and the request forms of the
// environment's target, ALERT_URL, which domains/alerts/send.ts posts:
//  - json (default): `{ title, message, tags, priority, event, at, ...data }` as application/json;
//  - ntfy (ALERT_FORMAT=ntfy): ntfy's publish form: the message as the plain-text body, `Title`, `Tags` (comma list)
//    and `Priority` (1-5) headers; ALERT_URL is then the topic URL (https://ntfy.sh/mytopic).
// ALERT_TOKEN, when set, goes as a bearer token (ntfy access tokens).
export type AlertFormat = 'json' | 'ntfy';

export interface NotifyConfig {
  format: AlertFormat;
  token: string | null;
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

/** An HTTP header value: ntfy decodes RFC 2047 encoded words, so non-ASCII text survives. */
export function headerText(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

/** The request an alert becomes in the configured format. */
export function alertRequest(
  config: NotifyConfig,
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
