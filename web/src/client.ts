// The one API client: typed by the hub's own OpenAPI document (api.d.ts is generated, never edited by hand).
// The session cookie rides along by itself; a 401 anywhere means the session ended, so the app shows sign-in.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './api.d.ts';
import { session } from './state.ts';

const signedOut: Middleware = {
  onResponse({ response, request }) {
    if (response.status === 401 && !request.url.endsWith('/api/session')) {
      session.value = { signed_in: false, via: null, expires_at: null };
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(signedOut);

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer, or an ApiError carrying the hub's code and message. */
export async function ok<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as { code?: string; message?: string };
    throw new ApiError(response.status, body.code ?? 'ERROR', body.message ?? response.statusText);
  }
  return data as T;
}

/** The data of a successful answer with its ETag (the version an edit sends back as If-Match). */
export async function tagged<T>(call: Promise<Result<T>>): Promise<{ data: T; etag: string | null }> {
  const answer = await call;
  return { data: await ok(Promise.resolve(answer)), etag: answer.response.headers.get('etag') };
}

/** Sends a multipart form (file uploads): openapi-fetch keeps the path and response typed, the form goes as is. */
export function formBody(form: FormData) {
  return { body: {} as never, bodySerializer: () => form };
}
