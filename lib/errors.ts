// The catalogue of every error the API sends: a stable code, its status and a message template. Every domain throws
// these (`throw hubError('PAGE_NOT_FOUND', id)`), so a client can act on the code alone, the OpenAPI document lists
// the codes as an enum, and the error handler never has to invent one. Where nothing more specific applies, the code
// follows the status (BAD_REQUEST, NOT_FOUND, CONFLICT ...). Add an entry here, in its section, before throwing it.

// Node's status phrases, read from the built-in module itself rather than `import ... from 'node:http'`: an ES import of
// a built-in builds a facade of every export it has, and reading node:http's lazy `WebSocket`, `CloseEvent` and
// `MessageEvent` loads Node's bundled fetch client (its own copy of undici, ~750 KB of source) that the hub never uses.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** The standard phrase of an HTTP status ("Not Found"), or undefined for a status without one. */
export function statusPhrase(status: number): string | undefined {
  return STATUS_CODES[status];
}

interface Entry<Params extends unknown[]> {
  status: number;
  message: (...params: Params) => string;
}

function entry<Params extends unknown[]>(
  status: number,
  message: (...params: Params) => string,
): Entry<Params> {
  return { status, message };
}

const detail = (text: string) => text;
const notFound = (what: string) =>
  entry(404, (id?: string) => (id === undefined ? `${what} not found` : `${what} ${id} not found`));

const catalogue = {
  // By status, where nothing more specific applies.
  BAD_REQUEST: entry(400, detail),
  UNAUTHORIZED: entry(401, (text = 'authentication required') => text),
  FORBIDDEN: entry(403, detail),
  NOT_FOUND: entry(404, detail),
  METHOD_NOT_ALLOWED: entry(405, detail),
  NOT_ACCEPTABLE: entry(406, detail),
  CONFLICT: entry(409, detail),
  PRECONDITION_FAILED: entry(412, detail),
  PAYLOAD_TOO_LARGE: entry(413, detail),
  URI_TOO_LONG: entry(414, detail),
  UNSUPPORTED_MEDIA_TYPE: entry(415, detail),
  UNPROCESSABLE: entry(422, detail),
  RATE_LIMITED: entry(429, detail),
  INTERNAL: entry(500, () => 'internal error'),
  BAD_GATEWAY: entry(502, detail),
  SERVICE_UNAVAILABLE: entry(503, detail),
  GATEWAY_TIMEOUT: entry(504, detail),

  // Input.
  VALIDATION_FAILED: entry(400, detail),
  INVALID_JSON: entry(400, detail),
  INVALID_MULTIPART: entry(400, detail),
  INVALID_INPUT: entry(400, detail),
  INVALID_DATETIME: entry(400, () => 'invalid date or time'),
  VALUE_TOO_LONG: entry(400, (text = 'a value is too long') => text),
  NOT_NULL_VIOLATION: entry(400, (field: string) => `${field} is required`),
  CHECK_VIOLATION: entry(400, detail),
  INVALID_TEXT: entry(400, detail),
  JSON_TOO_DEEP: entry(
    400,
    (field: string, limit: number) => `${field} is nested deeper than ${limit} levels`,
  ),

  // Access.
  OWNER_ONLY: entry(403, () => 'this route is for the owner only'),
  TIER_CANNOT_WRITE: entry(403, (tier: string) => `${tier}-tier agents cannot write`),
  TIER_CANNOT_LINK: entry(403, (tier: string) => `${tier}-tier agents cannot change links`),
  NOT_OWN_PROFILE: entry(403, () => 'an agent may read only its own profile'),
  SIGNATURE_INVALID: entry(401, detail),
  ORIGIN_REFUSED: entry(403, detail),
  TOO_MANY_FAILURES: entry(
    429,
    (seconds: number) =>
      `too many failed sign-ins or wrong tokens from this address; try again in ${seconds} s`,
  ),

  // Database states a client can act on.
  UNIQUE_VIOLATION: entry(409, detail),
  FOREIGN_KEY_VIOLATION: entry(409, detail),
  RESTRICT_VIOLATION: entry(409, detail),
  CONCURRENT_UPDATE: entry(409, () => 'concurrent update, try again'),
  DATABASE_UNAVAILABLE: entry(503, () => 'the database is unavailable'),
  STATEMENT_TIMEOUT: entry(503, () => 'the database took too long to answer'),
  SHUTTING_DOWN: entry(503, () => 'the service is shutting down'),

  // Knowledge store.
  SPACE_NOT_FOUND: notFound('space'),
  PAGE_NOT_FOUND: notFound('page'),
  PROJECT_NOT_FOUND: notFound('project'),
  TASK_NOT_FOUND: notFound('task'),
  REF_NOT_FOUND: notFound('ref'),
  SOURCE_DOC_NOT_FOUND: notFound('source document'),
  FEED_NOT_FOUND: notFound('feed'),
  INCIDENT_NOT_FOUND: notFound('incident'),
  FEED_ITEM_NOT_FOUND: notFound('feed item'),
  RESOURCE_NOT_FOUND: notFound('resource'),
  NETWORK_HOST_NOT_FOUND: notFound('network host'),
  PARENT_PAGE_NOT_FOUND: entry(404, () => 'parent page not found'),
  PAGE_CYCLE: entry(409, () => 'a page cannot move under itself or one of its descendants'),
  /** Rows that must share a space do not (said without naming anything in a space the caller cannot see). */
  SPACE_MISMATCH: entry(409, detail),
  SPACE_NOT_EMPTY: entry(409, () => 'the space has content; delete it with cascade=true to remove it all'),
  REF_NOT_LINKED: entry(404, () => 'the ref is not linked to this project'),
  DEPENDENCY_NOT_FOUND: entry(404, () => 'no such dependency'),
  DEPENDENCY_SELF: entry(409, () => 'a resource cannot depend on itself'),
  DEPENDENCY_EXISTS: entry(409, () => 'this dependency exists already'),
  DEPENDENCY_CYCLE: entry(409, () => 'this dependency would close a cycle'),
  TAGS_INVALID: entry(400, detail),
  SETTING_NOT_FOUND: entry(404, (key: string) => `no setting "${key}"`),
  SETTING_INVALID: entry(400, detail),
  UNKNOWN_COLOUR: entry(400, detail),
  INVALID_COLOUR: entry(400, detail),

  // Agents and governance.
  AGENT_NOT_FOUND: notFound('agent'),
  AGENT_TOKEN_NOT_FOUND: notFound('agent token'),
  PENDING_CHANGE_NOT_FOUND: notFound('pending change'),
  NOT_PENDING: entry(409, detail),
  PENDING_QUOTA: entry(429, detail),
  PENDING_FILE_MISSING: entry(404, detail),
  PENDING_FILE_CHANGED: entry(409, detail),
  PENDING_CHANGE_STALE: entry(409, detail),
  PAGE_VERSION_NOT_FOUND: notFound('page version'),
  TRASH_ITEM_NOT_FOUND: notFound('trash item'),
  TRASH_SPACE_GONE: entry(409, detail),
  VERSION_CHANGED: entry(412, detail),
  NOT_UPSERTABLE: entry(422, detail),
  UNKNOWN_ENTITY_TYPE: entry(400, (type: string) => `unknown entity type: ${type}`),
  UNKNOWN_ACTION: entry(400, (action: string) => `unknown action: ${action}`),

  // Capture and jobs.
  CAPTURE_NOT_FOUND: notFound('capture'),
  JOB_NOT_FOUND: notFound('job'),
  JOB_NOT_RETRYABLE: entry(409, detail),
  JOB_RUNNING: entry(409, detail),
  URL_REFUSED: entry(400, detail),
  IDEMPOTENCY_KEY_REUSED: entry(409, detail),
  OPML_INVALID: entry(400, detail),
  WEBHOOK_DISABLED: entry(503, detail),
  UNKNOWN_SERVICE: entry(404, detail),

  // Speed tests and voice.
  SPEEDTEST_NO_RESULT: entry(404, () => 'no speed test has run yet'),
  INVALID_SCHEDULE: entry(400, detail),
  STT_NOT_CONFIGURED: entry(
    503,
    () => 'speech-to-text is not configured: set STT_PROVIDER (openai, whispercpp or command)',
  ),
  STT_FAILED: entry(502, detail),
  AUDIO_UNSUPPORTED: entry(415, detail),
  VOICE_CLIP_NOT_FOUND: notFound('voice clip'),
  VOICE_CLIP_FILE_MISSING: entry(404, (id: string) => `the audio file of voice clip ${id} is missing`),
  RANGE_NOT_SATISFIABLE: entry(416, detail),
  // Icons.
  ICON_SET_NOT_FOUND: notFound('icon set'),
  ICON_SET_EXISTS: entry(
    409,
    (name: string) => `an icon set named "${name}" already exists (send ?replace=true to replace it)`,
  ),
  ICON_EXISTS: entry(
    409,
    (name: string) => `the set already has an icon named "${name}" (send ?replace=true to replace it)`,
  ),
  /** Nothing of that name to serve (a read). */
  ICON_UNKNOWN: entry(404, detail),
  /** An iconRef written somewhere names no icon. */
  ICON_NOT_FOUND: entry(400, detail),
  NO_ACCEPTABLE_ICON: entry(415, detail),
  ICON_REF_INVALID: entry(400, detail),
  ZIP_INVALID: entry(400, detail),
  ZIP_UNSAFE_ENTRY: entry(400, detail),
  ZIP_LIMIT_EXCEEDED: entry(413, detail),
  ICON_SET_FETCH_FAILED: entry(502, detail),
  // Export and import.
  IMPORT_FORMAT_UNKNOWN: entry(415, detail),
  // Browser sessions and the web app.
  OWNER_TOKEN_INVALID: entry(401, () => 'that is not the owner token'),
  APPROVAL_TOKEN_INVALID: entry(
    401,
    () => 'that approval link is not valid: used, expired or unknown (decide in the web app instead)',
  ),
  SESSION_NOT_FOUND: notFound('session'),
  WEB_APP_NOT_BUILT: entry(503, () => 'the web app is not built yet (npm run build:web)'),
  // Devices and services.
  DEVICE_NOT_FOUND: notFound('device'),
  DEVICE_EXISTS: entry(409, (mac: string) => `a device with MAC ${mac} exists`),
  INVALID_MAC: entry(
    400,
    (field: string, value: string) =>
      `${field} "${value}" is not a MAC address (aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or AABBCCDDEEFF)`,
  ),
  DEVICE_NOT_NEW: entry(409, (mac: string) => `device ${mac} has already been reviewed`),
  SERVICE_NOT_FOUND: notFound('monitored service'),
  CANDIDATE_NOT_FOUND: notFound('discovered candidate'),
  INVALID_SERVICE_CHECK: entry(400, detail),
  MAINTENANCE_NOT_FOUND: notFound('maintenance window'),
  INVALID_MAINTENANCE: entry(400, detail),
  SERVICE_NOT_PUSH: entry(409, (id: string) => `monitored service ${id} is not a push service`),
  PUSH_TOKEN_UNKNOWN: entry(404, (text = 'no enabled push service has this token') => text),
  PUSH_RID_INVALID: entry(400, (rid: string) => `rid must be a UUID (the run's id), not "${rid}"`),
  // The timeline.
  TIMELINE_CURSOR_INVALID: entry(
    400,
    () => 'cursor is not one this list gave out (pass next_cursor of the page before as it is)',
  ),
  TIMELINE_RANGE_INVALID: entry(400, detail),

  // Status pages and badges.
  STATUS_PAGE_NOT_FOUND: notFound('status page'),
  STATUS_PAGE_SLUG_TAKEN: entry(409, (slug: string) => `a status page with slug "${slug}" exists`),
  BADGE_NOT_FOUND: entry(404, () => 'no badge: the service is on no public status page'),
  // The launcher.
  APP_NOT_FOUND: notFound('app'),
  APP_ICON_NOT_FOUND: entry(
    404,
    (id: string) =>
      `no site icon was found for app ${id}: give it an icon, or ask for another look (POST /api/apps/${id}/icon/refresh)`,
  ),
  APP_OUT_OF_SCOPE: entry(
    403,
    () => 'apps belong to no space: an agent scoped to one space may read them but not change them',
  ),
  BOARD_NOT_FOUND: notFound('board'),
  IMPORT_YAML_INVALID: entry(400, detail),
  IMPORT_INVALID: entry(400, detail),
  BOARD_IS_DEFAULT: entry(
    409,
    () => 'the default board cannot be deleted (its layout is the dashboard layout)',
  ),
  SERVICE_TARGET_TAKEN: entry(409, (target: string) => `a monitored service already checks ${target}`),
  DISCOVERED_APP_NOT_FOUND: notFound('discovered app'),
  DISCOVERED_APP_PROMOTED: entry(
    409,
    (id: string, appId: string) => `discovered app ${id} was promoted already: it is app ${appId}`,
  ),
  // Dashboard and infrastructure cards. An upstream's failure is our 502 with its own status in the message and in
  // `upstream`, never its status as ours.
  LAYOUT_INVALID: entry(400, detail),
  LAYOUT_CHANGED: entry(412, detail),
  WEATHER_PLACE_INVALID: entry(400, detail),
  WEATHER_UPSTREAM_FAILED: entry(502, (reason: string) => `Open-Meteo failed: ${reason}`),
  PROXMOX_UPSTREAM_FAILED: entry(502, (reason: string) => `Proxmox VE failed: ${reason}`),
  PROXMOX_TOKEN_REFUSED: entry(
    502,
    (reason: string) =>
      `Proxmox VE refused the API token (${reason}): check PVE_TOKEN and give the token the PVEAuditor role on /`,
  ),
  HOST_METRICS_UNAVAILABLE: entry(502, detail),
  BACKUP_INVALID: entry(400, detail),
  BACKUP_ARCHIVE_NOT_FOUND: notFound('backup archive'),
  SHLINK_UPSTREAM_FAILED: entry(502, (reason: string) => `Shlink failed: ${reason}`),
  SHLINK_REJECTED: entry(400, (reason: string) => `Shlink refused the link: ${reason}`),

  // Integrations configured in the browser.
  INTEGRATION_NOT_CONFIGURED: entry(404, (kind: string) => `the ${kind} integration is not configured`),
  INTEGRATION_TEST_FAILED: entry(422, detail),
  SET_BY_ENVIRONMENT: entry(409, detail),
  INTEGRATION_SECRET_UNREADABLE: entry(500, detail),

  // Alerts.
  ALERT_TARGET_NOT_FOUND: notFound('alert target'),
  ALERT_RULE_NOT_FOUND: notFound('alert rule'),

  // The assistant and actions.
  ASSISTANT_NOT_CONFIGURED: entry(
    503,
    () => 'no assistant runner is configured: set ASSISTANT_RUNNER (command or openai) and its settings',
  ),
  TURN_IN_PROGRESS: entry(
    409,
    () => 'a turn is already running in this conversation; wait for its done event',
  ),
  AGENT_DISABLED: entry(409, (name: string) => `the agent "${name}" is disabled`),
  AGENT_OUT_OF_SPACE: entry(409, (name: string) => `the agent "${name}" is scoped to another space`),
  CAPABILITY_MISSING: entry(
    403,
    (name: string, capability: string) => `the agent "${name}" lacks the ${capability} capability`,
  ),
  INFRA_AGENT_MISSING: entry(
    404,
    () => 'no infrastructure agent: name one in the assistant settings or give an agent the infra capability',
  ),
  NOT_AN_ACTION: entry(400, detail),
  ACTION_NOT_FOUND: notFound('pending action'),
  ACTION_NOT_PENDING: entry(409, detail),

  // Downstream MCP servers (the gateway).
  MCP_SERVER_NOT_FOUND: notFound('MCP server'),
  MCP_SERVER_NAME_TAKEN: entry(409, (name: string) => `an MCP server named "${name}" exists`),

  // Routines.
  ROUTINE_NOT_FOUND: notFound('routine'),
} satisfies Record<string, Entry<never[]>>;

type Catalogue = typeof catalogue;
export type ErrorCode = keyof Catalogue;
export type ErrorParams<C extends ErrorCode> = Parameters<Catalogue[C]['message']>;

/** Every code the API can send, for the OpenAPI error schema. */
export const errorCodes = Object.keys(catalogue) as ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(catalogue, code);
}

export function statusOf(code: ErrorCode): number {
  return catalogue[code].status;
}

/** A catalogued error: what the error handler answers with, status and code as declared. */
export class HubError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  /** Extra fields for the body (validation details, the pending change a conflict is about ...). */
  readonly extra: Record<string, unknown> | undefined;
  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.statusCode = catalogue[code].status;
    this.extra = extra;
  }
}

export function hubError<C extends ErrorCode>(code: C, ...params: ErrorParams<C>): HubError {
  const message = (catalogue[code].message as (...args: ErrorParams<C>) => string)(...params);
  return new HubError(code, message);
}

/** The same error with extra body fields. */
export function hubErrorWith<C extends ErrorCode>(
  extra: Record<string, unknown>,
  code: C,
  ...params: ErrorParams<C>
): HubError {
  const error = hubError(code, ...params);
  return new HubError(error.code, error.message, extra);
}

const byStatus: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE',
  429: 'RATE_LIMITED',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

/** The generic code of a status: what an error that names no catalogued code is sent with. */
export function codeForStatus(status: number): ErrorCode {
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST');
}

export function errorBody(statusCode: number, code: ErrorCode, message: string) {
  return { statusCode, code, error: statusPhrase(statusCode) ?? 'Error', message };
}
