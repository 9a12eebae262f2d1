// The error catalogue (lib/errors.ts) held to the running app:
//   - every entry the code can send is produced here by a real request, with its status; the entries no request can
//     produce yet are listed below with the reason, and the two lists together are exactly the catalogue, so a new
//     code must be shown here one way or the other;
//   - over every registered route (read from the app's route table, never a list kept here), hostile and empty
//     requests never answer a 5xx, and every error body carries a catalogued code (never the generic ERROR).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { ingestUrlTask } from '../domains/capture/schema.ts';
import { insertPendingChange } from '../domains/pending-changes/store.ts';
import { type ErrorCode, errorCodes, isErrorCode, statusOf } from '../lib/errors.ts';
import { enqueue } from '../worker/enqueue.ts';
import { createAgent, createSpace, type TestApp, testApp } from './helpers/app.ts';
import { repoRoot } from './helpers/process.ts';
import { absentId, fillPath } from './helpers/routes.ts';

type Response = Awaited<ReturnType<TestApp['anon']>>;

/** Codes no request of the current code can produce, and why. */
const reserved: Partial<Record<ErrorCode, string>> = {
  FORBIDDEN: 'the generic code of a 403 naming no code; every 403 sent today names one',
  NOT_ACCEPTABLE: 'the generic code of a 406; no route negotiates content',
  PRECONDITION_FAILED:
    'the generic code of a 412: every conditional write names its own (VERSION_CHANGED ...)',
  UNPROCESSABLE: 'the generic code of a 422 naming no code',
  INTERNAL: 'the answer to a bug: an error nobody catalogued',
  SERVICE_UNAVAILABLE: 'the generic code of a 503 naming no code',
  WEB_APP_NOT_BUILT: 'only while web/dist is missing; the test run builds the app first',
  ORIGIN_REFUSED: 'for cookie-authenticated writes (browser sessions)',
  BAD_GATEWAY:
    'the generic code of a 502: every upstream failure names its own (WEATHER_UPSTREAM_FAILED ...)',
  GATEWAY_TIMEOUT: 'the generic code of a 504: upstream time-outs are answered as 502 with their own code',
  SHUTTING_DOWN: 'for requests arriving while the service stops',
  NOT_NULL_VIOLATION: 'database state: every required field is checked by a schema first',
  CHECK_VIOLATION: 'database state: every checked column is checked by a schema first',
  URI_TOO_LONG: 'the generic code of a 414: an over-long path parameter is answered 400 VALUE_TOO_LONG',
  INVALID_INPUT:
    'database state: text PostgreSQL would refuse is stopped at the boundary first (INVALID_TEXT)',
  INVALID_DATETIME: 'database state: dates a Date cannot hold are stopped by the date formats first',
  FOREIGN_KEY_VIOLATION: 'database state: references are looked up before they are written',
  CONFLICT: 'the generic code of a 409 naming no code; every 409 sent today names one',
  CONCURRENT_UPDATE:
    'database state: a serialization failure or deadlock (mapping in test/plugins/db.test.ts)',
  STATEMENT_TIMEOUT: 'database state: a query over statement_timeout (mapping in test/plugins/db.test.ts)',
  DATABASE_UNAVAILABLE: 'database state: produced by a real request in test/plugins/db.test.ts',
  UNKNOWN_ENTITY_TYPE: 'a guard of the entity registry: schemas and table checks keep unknown types out',
  UNKNOWN_ACTION: 'a guard of the entity registry: schemas and table checks keep unknown actions out',
  CAPTURE_NOT_FOUND: 'captures are reached through their jobs (JOB_NOT_FOUND); no route looks one up by id',
};

const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '100000' } });
const home = await createSpace(ta, 'Home');
const work = await createSpace(ta, 'Work');
const agents = {
  read: await createAgent(ta, { tier: 'read' }),
  suggest: await createAgent(ta, { tier: 'suggest', space_id: home.id }),
  scopedOwner: await createAgent(ta, { tier: 'owner', space_id: home.id }),
};

async function created(url: string, payload: Record<string, unknown>): Promise<{ id: string }> {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201)
    throw new Error(`POST ${url} answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

const homePage = await created('/api/pages', { space_id: home.id, title: 'home page' });
const workPage = await created('/api/pages', { space_id: work.id, title: 'work page' });
const project = await created('/api/projects', { space_id: home.id, name: 'project' });
const app = await created('/api/resources', { space_id: home.id, name: 'app' });
const db = await created('/api/resources', { space_id: home.id, name: 'db' });
await created(`/api/resources/${app.id}/dependencies`, { depends_on_id: db.id });

async function job(): Promise<string> {
  const queued = await enqueue(ta.sql, ingestUrlTask, {
    capture_id: absentId,
    url: 'https://example.org/',
    space_id: home.id,
    title: null,
    origin: 'url',
    captured_at: new Date().toISOString(),
  });
  return queued.id;
}

async function tooFast(): Promise<Response> {
  const limited = await testApp(t, { env: { AGENT_RATE_LIMIT: '1' } });
  const agent = await createAgent(limited);
  await limited.asAgent(agent.token, { method: 'GET', url: '/api/spaces' });
  return limited.asAgent(agent.token, { method: 'GET', url: '/api/spaces' });
}

const json = { 'content-type': 'application/json' };

/** One real request for each code the API can send. */
const producers: Partial<Record<ErrorCode, () => Promise<Response>>> = {
  BAD_REQUEST: () => ta.asOwner({ method: 'GET', url: '/api/spaces/%E0%A4%A' }),
  VALUE_TOO_LONG: () => ta.asOwner({ method: 'GET', url: `/api/spaces/${'x'.repeat(300)}` }),
  OWNER_TOKEN_INVALID: () =>
    ta.anon({ method: 'POST', url: '/api/session', payload: { token: 'x'.repeat(32) } }),
  UNAUTHORIZED: () => ta.anon({ method: 'GET', url: '/api/spaces' }),
  NOT_FOUND: () => ta.asOwner({ method: 'GET', url: '/api/nowhere' }),
  METHOD_NOT_ALLOWED: () => ta.asOwner({ method: 'GET', url: '/api/mcp' }),
  RESTRICT_VIOLATION: async () => {
    // An empty space an agent is held to: deleting it would widen the agent's reach.
    const held = await createSpace(ta, 'Held');
    await createAgent(ta, { space_id: held.id });
    return ta.asOwner({ method: 'DELETE', url: `/api/spaces/${held.id}` });
  },
  TOO_MANY_FAILURES: async () => {
    // From an address of its own: the rest of this file comes from the default one.
    const guess = { method: 'GET', url: '/api/spaces', remoteAddress: '198.51.100.7' } as const;
    for (let i = 0; i < 10; i++) await ta.asAgent(`hub_agent_guess${i}`, guess);
    return ta.asAgent('hub_agent_guess', guess);
  },
  SESSION_NOT_FOUND: () => ta.asOwner({ method: 'DELETE', url: `/api/sessions/${absentId}` }),
  PAYLOAD_TOO_LARGE: () =>
    ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: 'x'.repeat(3 * 1024 * 1024) } }),
  UNSUPPORTED_MEDIA_TYPE: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/spaces',
      headers: { 'content-type': 'application/xml' },
      payload: '<x/>',
    }),
  RATE_LIMITED: tooFast,
  VALIDATION_FAILED: () => ta.asOwner({ method: 'POST', url: '/api/spaces', payload: {} }),
  INVALID_JSON: () => ta.asOwner({ method: 'POST', url: '/api/spaces', headers: json, payload: '{' }),
  INVALID_TEXT: () => ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: 'a\u0000b' } }),
  OWNER_ONLY: () => ta.asAgent(agents.read.token, { method: 'GET', url: '/api/agents' }),
  TIER_CANNOT_WRITE: () =>
    ta.asAgent(agents.read.token, { method: 'POST', url: '/api/pages', payload: { title: 'x' } }),
  TIER_CANNOT_LINK: () =>
    ta.asAgent(agents.suggest.token, {
      method: 'POST',
      url: `/api/projects/${project.id}/refs`,
      payload: { ref_id: absentId },
    }),
  NOT_OWN_PROFILE: () =>
    ta.asAgent(agents.read.token, { method: 'GET', url: `/api/agents/${agents.suggest.id}/profile` }),
  UNIQUE_VIOLATION: () => ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: 'Home' } }),
  SPACE_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/spaces/${absentId}` }),
  PAGE_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/pages/${absentId}` }),
  PROJECT_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/projects/${absentId}` }),
  TASK_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/tasks/${absentId}` }),
  REF_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/refs/${absentId}` }),
  SOURCE_DOC_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/source-docs/${absentId}` }),
  FEED_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/feeds/${absentId}` }),
  INCIDENT_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/incidents/${absentId}` }),
  FEED_ITEM_NOT_FOUND: async () => {
    const feed = await ta.asOwner({
      method: 'POST',
      url: '/api/feeds',
      payload: { url: 'https://feeds.example/errors.xml' },
    });
    return ta.asOwner({
      method: 'PATCH',
      url: `/api/feeds/${feed.json().id}/items/${absentId}`,
      payload: { read: true },
    });
  },
  OPML_INVALID: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/feeds/import',
      headers: { 'content-type': 'text/x-opml' },
      payload: '<html>not opml</html>',
    }),
  RESOURCE_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/resources/${absentId}` }),
  NETWORK_HOST_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/network-hosts/${absentId}` }),
  PARENT_PAGE_NOT_FOUND: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/pages',
      payload: { space_id: home.id, title: 'x', parent_id: absentId },
    }),
  PAGE_CYCLE: () =>
    ta.asOwner({ method: 'PATCH', url: `/api/pages/${homePage.id}`, payload: { parent_id: homePage.id } }),
  SPACE_MISMATCH: () =>
    ta.asOwner({ method: 'PATCH', url: `/api/pages/${homePage.id}`, payload: { parent_id: workPage.id } }),
  SPACE_NOT_EMPTY: () => ta.asOwner({ method: 'DELETE', url: `/api/spaces/${home.id}` }),
  REF_NOT_LINKED: () => ta.asOwner({ method: 'DELETE', url: `/api/projects/${project.id}/refs/${absentId}` }),
  DEPENDENCY_NOT_FOUND: () =>
    ta.asOwner({ method: 'DELETE', url: `/api/resources/${db.id}/dependencies/${app.id}` }),
  DEPENDENCY_SELF: () =>
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${app.id}/dependencies`,
      payload: { depends_on_id: app.id },
    }),
  DEPENDENCY_EXISTS: () =>
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${app.id}/dependencies`,
      payload: { depends_on_id: db.id },
    }),
  DEPENDENCY_CYCLE: () =>
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${db.id}/dependencies`,
      payload: { depends_on_id: app.id },
    }),
  SETTING_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: '/api/settings/nothing.here' }),
  SETTING_INVALID: () =>
    ta.asOwner({ method: 'PUT', url: '/api/settings/theme', payload: { value: { accent: 7 } } }),
  UNKNOWN_COLOUR: () => ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { sparkle: '#fff' } }),
  INVALID_COLOUR: () => ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { accent: 'red' } }),
  AGENT_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/agents/${absentId}` }),
  AGENT_TOKEN_NOT_FOUND: () => ta.asOwner({ method: 'DELETE', url: `/api/agent-tokens/${absentId}` }),
  PENDING_CHANGE_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/pending-changes/${absentId}` }),
  NOT_PENDING: async () => {
    const proposed = await ta.asAgent(agents.suggest.token, {
      method: 'POST',
      url: '/api/pages',
      payload: { title: 'proposed' },
    });
    const url = `/api/pending-changes/${proposed.json().pending_change_id}/reject`;
    await ta.asOwner({ method: 'POST', url, payload: {} });
    return ta.asOwner({ method: 'POST', url, payload: {} });
  },
  NOT_UPSERTABLE: async () => {
    const change = await insertPendingChange(ta.sql, {
      agent_id: agents.suggest.id,
      entity_type: 'page',
      action: 'upsert',
      entity_id: null,
      space_id: home.id,
      payload: { space_id: home.id, title: 'never' },
    });
    return ta.asOwner({ method: 'POST', url: `/api/pending-changes/${change.id}/approve` });
  },
  JOB_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: '/api/jobs/999999999' }),
  JOB_NOT_RETRYABLE: async () => {
    const id = await job();
    await ta.sql`update job_records set state = 'completed' where id = ${id}`;
    return ta.asOwner({ method: 'POST', url: `/api/jobs/${id}/retry` });
  },
  JOB_RUNNING: async () => {
    const id = await job();
    await ta.sql`update job_records set state = 'running' where id = ${id}`;
    return ta.asOwner({ method: 'DELETE', url: `/api/jobs/${id}` });
  },
  WEBHOOK_DISABLED: () => ta.anon({ method: 'POST', url: '/api/ingest/karakeep', payload: {} }),
  URL_REFUSED: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/capture',
      payload: { url: 'http://127.0.0.1/', idempotency_key: 'l' },
    }),
  IDEMPOTENCY_KEY_REUSED: async () => {
    const first = { url: 'https://example.org/a', idempotency_key: 'reused' };
    await ta.asOwner({ method: 'POST', url: '/api/capture', payload: first });
    return ta.asOwner({
      method: 'POST',
      url: '/api/capture',
      payload: { ...first, url: 'https://example.org/b' },
    });
  },
  INVALID_MULTIPART: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/capture/upload',
      headers: { 'content-type': 'multipart/form-data' },
      payload: 'not multipart',
    }),
  JSON_TOO_DEEP: () =>
    ta.asOwner({
      method: 'PUT',
      url: '/api/settings/deep',
      payload: { value: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) },
    }),
  SPEEDTEST_NO_RESULT: () => ta.asOwner({ method: 'GET', url: '/api/speedtest/latest' }),
  VOICE_CLIP_NOT_FOUND: () => ta.asOwner({ method: 'DELETE', url: `/api/voice/clips/${absentId}` }),
  SERVICE_NOT_FOUND: () => ta.asOwner({ method: 'DELETE', url: `/api/health/services/${absentId}` }),
  BOARD_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/boards/${absentId}` }),
  BOARD_IS_DEFAULT: async () => {
    const [board] = (await ta.asOwner({ method: 'GET', url: '/api/boards' })).json().items;
    return ta.asOwner({ method: 'DELETE', url: `/api/boards/${board.id}` });
  },
  IMPORT_YAML_INVALID: () =>
    ta.asOwner({ method: 'POST', url: '/api/import/homepage', payload: { services: '- a: b: c' } }),
  IMPORT_INVALID: () =>
    ta.asOwner({ method: 'POST', url: '/api/import/homepage', payload: { widgets: 'not: a list' } }),
  APP_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/apps/${absentId}` }),
  APP_ICON_NOT_FOUND: async () => {
    // Loopback is refused by the guarded client here: no icon can be found.
    const created = await ta.asOwner({
      method: 'POST',
      url: '/api/apps',
      payload: { name: 'No icon', href: 'http://127.0.0.1:9/' },
    });
    return ta.asOwner({ method: 'GET', url: `/api/apps/${created.json().id}/icon` });
  },
  ALERT_TARGET_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/alerts/targets/${absentId}` }),
  ALERT_RULE_NOT_FOUND: () => ta.asOwner({ method: 'GET', url: `/api/alerts/rules/${absentId}` }),
  APP_OUT_OF_SCOPE: () =>
    ta.asAgent(agents.scopedOwner.token, {
      method: 'POST',
      url: '/api/apps',
      payload: { name: 'x', href: 'https://x.example' },
    }),
  ACTION_NOT_FOUND: () => ta.asOwner({ method: 'POST', url: `/api/actions/${absentId}/approve` }),
  BACKUP_ARCHIVE_NOT_FOUND: () =>
    ta.asOwner({ method: 'GET', url: '/api/system/backups/ops-hub-backup-20260101T000000Z.zip' }),
  TIMELINE_CURSOR_INVALID: () => ta.asOwner({ method: 'GET', url: '/api/timeline?cursor=nonsense' }),
  TIMELINE_RANGE_INVALID: () =>
    ta.asOwner({
      method: 'GET',
      url: '/api/timeline?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z',
    }),
  TAGS_INVALID: () =>
    ta.asOwner({ method: 'PATCH', url: `/api/pages/${homePage.id}`, payload: { tags: ['ok', ' '] } }),
  BACKUP_INVALID: () =>
    ta.asOwner({
      method: 'POST',
      url: '/api/backups',
      payload: {
        started_at: '2026-11-22T03:00:00Z',
        finished_at: '2026-11-22T02:00:00Z',
        status: 'ok',
        target: { name: 'nas', free_bytes: 1, total_bytes: 2 },
        guests: [],
      },
    }),
  AGENT_DISABLED: async () => {
    const idle = await createAgent(ta, { tier: 'suggest' });
    await ta.asOwner({ method: 'PATCH', url: `/api/agents/${idle.id}`, payload: { status: 'disabled' } });
    await ta.asOwner({
      method: 'PUT',
      url: `/api/spaces/${work.id}/companion`,
      payload: { agent_id: idle.id },
    });
    return ta.asOwner({
      method: 'POST',
      url: `/api/spaces/${work.id}/companion/turn`,
      payload: { message: 'hi', view: null },
    });
  },
  AGENT_OUT_OF_SPACE: async () => {
    await ta.asOwner({
      method: 'PUT',
      url: `/api/spaces/${work.id}/companion`,
      payload: { agent_id: agents.suggest.id },
    });
    return ta.asOwner({
      method: 'POST',
      url: `/api/spaces/${work.id}/companion/turn`,
      payload: { message: 'hi', view: null },
    });
  },
};

/**
 * Codes whose real request needs an upstream, a program or a configuration of its own: the test file named here
 * sends it and checks the code (this test holds that the file does).
 */
const elsewhere: Partial<Record<ErrorCode, string>> = {
  RANGE_NOT_SATISFIABLE: 'test/domains/voice/voice.test.ts',
  VERSION_CHANGED: 'test/domains/entities/versions.test.ts',
  PENDING_CHANGE_STALE: 'test/domains/entities/versions.test.ts',
  PAGE_VERSION_NOT_FOUND: 'test/domains/page-history/history.test.ts',
  TRASH_ITEM_NOT_FOUND: 'test/domains/trash/trash.test.ts',
  TRASH_SPACE_GONE: 'test/domains/trash/trash.test.ts',
  ICON_EXISTS: 'test/domains/icons/sets.test.ts',
  SIGNATURE_INVALID: 'test/domains/capture/webhook.test.ts',
  UNKNOWN_SERVICE: 'test/domains/capture/webhook.test.ts',
  INVALID_SCHEDULE: 'test/domains/speedtest/speedtest.test.ts',
  STT_NOT_CONFIGURED: 'test/domains/voice/voice.test.ts',
  STT_FAILED: 'test/domains/voice/voice.test.ts',
  AUDIO_UNSUPPORTED: 'test/domains/voice/voice.test.ts',
  VOICE_CLIP_FILE_MISSING: 'test/domains/voice/voice.test.ts',
  ICON_SET_NOT_FOUND: 'test/domains/icons/sets.test.ts',
  ICON_SET_EXISTS: 'test/domains/icons/sets.test.ts',
  ICON_UNKNOWN: 'test/domains/icons/sets.test.ts',
  ICON_NOT_FOUND: 'test/domains/icons/refs.test.ts',
  NO_ACCEPTABLE_ICON: 'test/domains/icons/sets.test.ts',
  ICON_REF_INVALID: 'test/domains/icons/brands.test.ts',
  ZIP_INVALID: 'test/domains/icons/zip.test.ts',
  ZIP_UNSAFE_ENTRY: 'test/domains/icons/zip.test.ts',
  ZIP_LIMIT_EXCEEDED: 'test/domains/icons/zip.test.ts',
  ICON_SET_FETCH_FAILED: 'test/domains/icons/zip.test.ts',
  IMPORT_FORMAT_UNKNOWN: 'test/domains/transfer/import.test.ts',
  DEVICE_NOT_FOUND: 'test/domains/devices/devices.test.ts',
  DEVICE_EXISTS: 'test/domains/devices/devices.test.ts',
  INVALID_MAC: 'test/domains/devices/devices.test.ts',
  DEVICE_NOT_NEW: 'test/domains/devices/devices.test.ts',
  CANDIDATE_NOT_FOUND: 'test/domains/health/discovery.test.ts',
  INVALID_SERVICE_CHECK: 'test/domains/health/registry.test.ts',
  SERVICE_TARGET_TAKEN: 'test/domains/health/registry.test.ts',
  DISCOVERED_APP_NOT_FOUND: 'test/domains/docker/discovery.test.ts',
  DISCOVERED_APP_PROMOTED: 'test/domains/docker/discovery.test.ts',
  MAINTENANCE_NOT_FOUND: 'test/domains/maintenance/windows.test.ts',
  APPROVAL_TOKEN_INVALID: 'test/domains/approvals-phone/phone.test.ts',
  INVALID_MAINTENANCE: 'test/domains/maintenance/windows.test.ts',
  SERVICE_NOT_PUSH: 'test/domains/health/push.test.ts',
  PUSH_TOKEN_UNKNOWN: 'test/domains/health/push.test.ts',
  PUSH_RID_INVALID: 'test/domains/health/push.test.ts',
  STATUS_PAGE_NOT_FOUND: 'test/domains/status-pages/status-pages.test.ts',
  STATUS_PAGE_SLUG_TAKEN: 'test/domains/status-pages/status-pages.test.ts',
  BADGE_NOT_FOUND: 'test/domains/status-pages/status-pages.test.ts',
  LAYOUT_INVALID: 'test/domains/dashboard/layout.test.ts',
  LAYOUT_CHANGED: 'test/domains/dashboard/layout.test.ts',
  WEATHER_PLACE_INVALID: 'test/domains/dashboard/weather.test.ts',
  WEATHER_UPSTREAM_FAILED: 'test/domains/dashboard/weather.test.ts',
  PROXMOX_UPSTREAM_FAILED: 'test/domains/dashboard/proxmox.test.ts',
  PROXMOX_TOKEN_REFUSED: 'test/domains/dashboard/proxmox.test.ts',
  HOST_METRICS_UNAVAILABLE: 'test/domains/dashboard/host.test.ts',
  SHLINK_UPSTREAM_FAILED: 'test/domains/dashboard/shlink.test.ts',
  SHLINK_REJECTED: 'test/domains/dashboard/shlink.test.ts',
  INTEGRATION_NOT_CONFIGURED: 'test/domains/integrations/api.test.ts',
  INTEGRATION_TEST_FAILED: 'test/domains/integrations/api.test.ts',
  SET_BY_ENVIRONMENT: 'test/domains/integrations/api.test.ts',
  INTEGRATION_SECRET_UNREADABLE: 'test/domains/integrations/api.test.ts',
  ASSISTANT_NOT_CONFIGURED: 'test/domains/assistant/command.test.ts',
  TURN_IN_PROGRESS: 'test/domains/assistant/command.test.ts',
  CAPABILITY_MISSING: 'test/domains/assistant/command.test.ts',
  INFRA_AGENT_MISSING: 'test/domains/assistant/command.test.ts',
  NOT_AN_ACTION: 'test/domains/assistant/actions.test.ts',
  ACTION_NOT_PENDING: 'test/domains/assistant/actions.test.ts',
  PENDING_QUOTA: 'test/domains/pending-changes/files.test.ts',
  PENDING_FILE_MISSING: 'test/domains/pending-changes/files.test.ts',
  PENDING_FILE_CHANGED: 'test/domains/pending-changes/files.test.ts',
  MCP_SERVER_NOT_FOUND: 'test/domains/mcp-servers/servers.test.ts',
  MCP_SERVER_NAME_TAKEN: 'test/domains/mcp-servers/servers.test.ts',
  ROUTINE_NOT_FOUND: 'test/domains/routines/routines.test.ts',
};

t.test(
  'every catalogue entry is produced below, produced by its domain’s test, or reserved with a reason',
  async (t) => {
    const shown = [...Object.keys(producers), ...Object.keys(reserved), ...Object.keys(elsewhere)].sort();
    t.same(shown, [...errorCodes].sort());
    const both = Object.keys(producers).filter((code) => code in reserved || code in elsewhere);
    t.same(both, [], 'no code is in two lists');
    for (const [code, file] of Object.entries(elsewhere)) {
      const text = await readFile(path.join(repoRoot, file), 'utf8');
      t.ok(text.includes(`'${code}'`), `${code} is checked in ${file}`);
    }
  },
);

t.test('each producible entry is sent by a real request, with its status', async (t) => {
  for (const [code, produce] of Object.entries(producers) as [ErrorCode, () => Promise<Response>][]) {
    const response = await produce();
    const body = response.json();
    t.same(
      { status: response.statusCode, code: body.code },
      { status: statusOf(code), code },
      `${code}: ${body.message}`,
    );
    t.equal(body.statusCode, response.statusCode, `${code}: the body repeats the status`);
    t.type(body.message, 'string');
    t.notMatch(
      body.message,
      /(?<!idempotency)_key\b|_fkey|_check|select |insert |\/work\/|at .*\.ts:/,
      `${code}: nothing internal`,
    );
  }
});

t.test('hostile and empty requests to every route never get a 5xx or an uncatalogued code', async (t) => {
  const routes = ta.app
    .routeAccess()
    .filter(
      (route) => route.method !== 'HEAD' && route.method !== 'OPTIONS' && !route.url.startsWith('/api/docs'),
    );
  t.ok(routes.length > 60);
  // Event streams (the dashboard's, the assistant's turns) answer for as long as the client listens: their own
  // tests read them over real HTTP; here they would never end.
  type Operation = { responses?: Record<string, { content?: Record<string, unknown> }> };
  const document = ta.app.swagger() as { paths: Record<string, Record<string, Operation>> };
  const streams = new Set(
    Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => 'text/event-stream' in (operation.responses?.['200']?.content ?? {}))
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    ),
  );
  t.ok(streams.has('GET /api/dashboard/stream'), 'the streams are found in the document');
  const values = [absentId, 'not-a-uuid', '%00', 'x'.repeat(300), '-1', "'; drop table spaces; --"];
  const bodies: (string | undefined)[] = [
    undefined,
    '',
    '{',
    '[]',
    'null',
    '{"a":"\\u0000"}',
    '{"title":{"$gt":""}}',
  ];
  const queries = ['', '?limit=-1&offset=x', '?space_id=nope&q=%00', `?limit=${'9'.repeat(30)}`];
  for (const route of routes) {
    if (streams.has(`${route.method} ${route.url}`)) continue;
    for (const [i, value] of values.entries()) {
      const url = fillPath(route.url, () => value) + queries[i % queries.length];
      const payload =
        route.method === 'GET' || route.method === 'DELETE' ? undefined : bodies[i % bodies.length];
      for (const send of [
        ta.asOwner,
        (request: Parameters<TestApp['anon']>[0]) => ta.asAgent(agents.scopedOwner.token, request),
      ]) {
        const response = await send({
          method: route.method as 'POST',
          url,
          ...(payload === undefined ? {} : { payload, headers: json }),
        });
        const what = `${route.method} ${url.slice(0, 80)} → ${response.statusCode}`;
        const body = response.headers['content-type']?.includes('json') ? response.json() : null;
        if (route.url === '/api/readyz') continue;
        if (response.statusCode >= 500) {
          t.ok(
            isErrorCode(body?.code) && body.code !== 'INTERNAL',
            `${what}: a 5xx only as a catalogued state`,
          );
        }
        if (response.statusCode >= 400 && body && 'statusCode' in body) {
          t.ok(isErrorCode(body.code), `${what}: ${body.code} is catalogued`);
        }
      }
    }
  }
});
