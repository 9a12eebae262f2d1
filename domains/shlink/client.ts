// Shlink's REST API v3: `X-Api-Key` on every call; `/rest/health` for the version; `/rest/v3/short-urls` to list
// (newest first: orderBy=dateCreated-DESC) and to create ({ longUrl, customSlug, title, tags }). Errors are
// application/problem+json: { type, title, detail, status } (type e.g. https://shlink.io/api/error/non-unique-slug).
import { HubError, hubError } from '../../lib/errors.ts';
import { callUpstream, UpstreamError, upstreamFailure } from '../../lib/upstream.ts';

export interface ShlinkOptions {
  url: string;
  apiKey: string;
  timeoutMs: number;
}

interface ShlinkShortUrl {
  shortCode: string;
  shortUrl: string;
  longUrl: string;
  dateCreated: string;
  title?: string | null;
  tags?: string[];
  domain?: string | null;
  visitsSummary?: { total?: number; nonBots?: number; bots?: number };
}

interface Problem {
  type?: string;
  title?: string;
  detail?: string;
  status?: number;
}

function link(short: ShlinkShortUrl) {
  return {
    short_code: short.shortCode,
    short_url: short.shortUrl,
    long_url: short.longUrl,
    title: short.title ?? null,
    tags: short.tags ?? [],
    created_at: short.dateCreated,
    visits: short.visitsSummary?.total ?? null,
  };
}

/** Shlink's problem as our error: its status, type and title in the message and in `upstream`. */
function problemError(error: unknown): HubError {
  if (!(error instanceof UpstreamError) || error.status === null)
    return upstreamFailure('SHLINK_UPSTREAM_FAILED', error);
  const problem = (error.body && typeof error.body === 'object' ? error.body : {}) as Problem;
  const upstream = {
    status: error.status,
    type: problem.type ?? null,
    title: problem.title ?? null,
    detail: problem.detail ?? null,
  };
  const said = [`HTTP ${error.status}`, problem.title, problem.detail, problem.type && `(${problem.type})`]
    .filter(Boolean)
    .join(' ');
  // A 400 is Shlink refusing what we sent on the caller's behalf (a slug in use, an invalid URL): the caller's 400.
  const base =
    error.status === 400 ? hubError('SHLINK_REJECTED', said) : hubError('SHLINK_UPSTREAM_FAILED', said);
  return new HubError(base.code, base.message, { upstream });
}

export function shlinkClient(options: ShlinkOptions) {
  const headers = { 'x-api-key': options.apiKey };
  const call = async (path: string, extra: { method?: 'GET' | 'POST'; json?: unknown } = {}) => {
    try {
      return (
        await callUpstream(`${options.url}${path}`, { ...extra, headers, timeoutMs: options.timeoutMs })
      ).body;
    } catch (error) {
      throw problemError(error);
    }
  };
  return {
    async version() {
      const body = (await call('/rest/health')) as { status?: string; version?: string } | null;
      return { status: body?.status ?? null, version: body?.version ?? null };
    },
    async recent(limit: number) {
      const query = new URLSearchParams({ itemsPerPage: String(limit), orderBy: 'dateCreated-DESC' });
      const body = (await call(`/rest/v3/short-urls?${query}`)) as {
        shortUrls?: { data?: ShlinkShortUrl[]; pagination?: { totalItems?: number } };
      } | null;
      const data = body?.shortUrls?.data;
      if (!Array.isArray(data))
        throw upstreamFailure('SHLINK_UPSTREAM_FAILED', new Error('no shortUrls.data in the answer'));
      return { items: data.map(link), total: body?.shortUrls?.pagination?.totalItems ?? data.length };
    },
    async create(input: { long_url: string; slug?: string; title?: string; tags?: string[] }) {
      const body = (await call('/rest/v3/short-urls', {
        method: 'POST',
        json: {
          longUrl: input.long_url,
          ...(input.slug === undefined ? {} : { customSlug: input.slug }),
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.tags === undefined ? {} : { tags: input.tags }),
        },
      })) as ShlinkShortUrl | null;
      if (!body?.shortCode)
        throw upstreamFailure('SHLINK_UPSTREAM_FAILED', new Error('no shortCode in the answer'));
      return link(body);
    },
  };
}
