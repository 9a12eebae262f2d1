// Access and sign-in (README, Configuration).
import { ConfigError, type Env, httpUrl, integer, secret, text } from './env.ts';

/** The access proxy whose signed assertion signs the owner in. */
export interface AccessProxyConfig {
  teamDomain: string;
  audience: string;
  ownerEmails: string[];
  /** Where the team's signing keys are published; derived from the team domain unless overridden. */
  certsUrl: string;
  issuer: string;
}

export interface AccessConfig {
  /** null: generated on first start and kept in the data directory. */
  ownerToken: string | null;
  /** null: no sign-in through an access proxy. */
  proxy: AccessProxyConfig | null;
  /** How long a browser session lasts. */
  sessionTtlHours: number;
  agentRateLimitPerMinute: number;
  /** Failed sign-ins and wrong bearer tokens one client address may send in 10 minutes before it gets 429. */
  authFailureLimit: number;
}

function ownerToken(env: Env): string | null {
  const token = secret(env, 'OWNER_TOKEN');
  if (token !== null && token.length < 24) {
    throw new ConfigError(
      'OWNER_TOKEN',
      'must be at least 24 characters (leave it unset to have one generated)',
    );
  }
  return token;
}

function proxy(env: Env): AccessProxyConfig | null {
  const names = ['ACCESS_TEAM_DOMAIN', 'ACCESS_AUDIENCE', 'OWNER_EMAILS'] as const;
  const values = names.map((name) => text(env, name));
  if (values.every((value) => value === null)) return null;
  const missing = names.filter((_, i) => values[i] === null);
  if (missing.length > 0) {
    throw new ConfigError(missing[0], `must be set too: the access-proxy login needs ${names.join(', ')}`);
  }
  const [teamDomain, audience, emails] = values as string[];
  if (!/^[a-z0-9.-]+(:\d+)?$/i.test(teamDomain)) {
    throw new ConfigError(
      'ACCESS_TEAM_DOMAIN',
      `must be a host name like myteam.cloudflareaccess.com (got "${teamDomain}")`,
    );
  }
  const ownerEmails = emails
    .split(',')
    .map((email) => email.trim().toLowerCase())
    .filter(Boolean);
  const bad = ownerEmails.find((email) => !/^[^@\s]+@[^@\s]+$/.test(email));
  if (bad !== undefined || ownerEmails.length === 0) {
    throw new ConfigError(
      'OWNER_EMAILS',
      `must be a comma-separated list of email addresses (got "${emails}")`,
    );
  }
  const issuer = `https://${teamDomain}`;
  return {
    teamDomain,
    audience,
    ownerEmails,
    issuer,
    certsUrl: httpUrl(env, 'ACCESS_CERTS_URL', `${issuer}/cdn-cgi/access/certs`),
  };
}

export function access(env: Env): AccessConfig {
  return {
    ownerToken: ownerToken(env),
    proxy: proxy(env),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 24 * 14, 1, 24 * 365),
    agentRateLimitPerMinute: integer(env, 'AGENT_RATE_LIMIT', 120, 1, 100_000),
    authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
  };
}
