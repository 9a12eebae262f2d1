// What the integrations routes do: show each kind (secrets only as { set }), save one after testing its upstream,
// test without saving, remove. Secrets are sealed before they reach the store and opened only to be used.
import { HubError, hubError } from '../../lib/errors.ts';
import { sealSecret } from '../../lib/secrets.ts';
import { kinds as alertTargetKinds } from '../alerts/schema.ts';
import { listTargets } from '../alerts/targets.ts';
import { checkIntegration } from './checks.ts';
import { secretKeyOf } from './keyring.ts';
import {
  environmentVariables,
  type IntegrationDeps,
  type IntegrationSettingsOf,
  integrationSettings,
  openedValues,
  settingsFromEnvironment,
  settingsFromValues,
} from './resolve.ts';
import {
  type Integration,
  type IntegrationKind,
  integrationKinds,
  kinds,
  type TestResult,
} from './schema.ts';
import {
  environmentTests,
  findIntegrationRow,
  type IntegrationRow,
  listIntegrationRows,
  recordEnvironmentTest,
  recordIntegrationTest,
  saveIntegrationRow,
} from './store.ts';

const set = (value: unknown) => ({ set: value !== null && value !== undefined && value !== '' });

/** The fields the environment gives, in the form's names; secrets as { set }. */
function environmentFields<K extends IntegrationKind>(kind: K, settings: IntegrationSettingsOf[K]) {
  const s = settings as IntegrationSettingsOf[IntegrationKind];
  switch (kind) {
    case 'weather':
      return { ...(s as IntegrationSettingsOf['weather']) };
    case 'proxmox': {
      const pve = s as IntegrationSettingsOf['proxmox'];
      return {
        url: pve.url,
        token_id: pve.token.split('=')[0],
        token_secret: set(pve.token),
        ca_certificate: pve.ca,
        tls_insecure: pve.tlsInsecure,
      };
    }
    case 'shlink':
      return { url: (s as IntegrationSettingsOf['shlink']).url, api_key: set(true) };
    case 'stt': {
      const stt = s as IntegrationSettingsOf['stt'];
      return {
        provider: stt.provider,
        ...('url' in stt ? { url: stt.url } : {}),
        ...('model' in stt ? { model: stt.model, api_key: set(stt.apiKey) } : {}),
      };
    }
    case 'assistant': {
      const assistant = s as IntegrationSettingsOf['assistant'];
      return assistant.runner === 'openai'
        ? { runner: 'openai', url: assistant.url, model: assistant.model, api_key: set(assistant.apiKey) }
        : { runner: 'command' };
    }
    case 'linkding': {
      const linkding = s as IntegrationSettingsOf['linkding'];
      return { url: linkding.url, schedule: linkding.schedule, token: set(linkding.token) };
    }
    case 'karakeep':
      return { webhook_secret: set(true) };
    case 'docker': {
      const docker = s as IntegrationSettingsOf['docker'];
      return {
        host: docker.host,
        tls: docker.tls !== null,
        ca_certificate: docker.tls?.ca ?? null,
        client_certificate: docker.tls?.cert ?? null,
        client_key: set(docker.tls?.key),
      };
    }
  }
}

function entry(
  kind: IntegrationKind,
  row: IntegrationRow | undefined,
  environment: IntegrationSettingsOf[IntegrationKind] | null,
  environmentTest: TestResult | null = null,
): Integration {
  const definition = kinds[kind];
  const base = {
    kind,
    title: definition.title,
    secrets: [...definition.secrets],
    last_test: row?.last_test ?? null,
    updated_at: row?.updated_at ?? null,
  };
  if (environment) {
    return {
      ...base,
      last_test: environmentTest,
      configured: true,
      source: 'environment',
      variables: [...environmentVariables[kind]],
      fields: environmentFields(kind, environment),
    };
  }
  const fields: Record<string, unknown> = { ...row?.fields };
  for (const field of definition.secrets) fields[field] = set(row?.secrets[field]);
  return { ...base, configured: row !== undefined, source: row ? 'settings' : null, variables: [], fields };
}

/**
 * One entry per alert target, after the kinds: each has a source of its own (ALERT_URL is the environment's, the
 * others Settings → Alerts'), its own fields and secrets, so one `alerts` entry could not say where it is set.
 * They are managed under /api/alerts/targets; a target's test is answered there, not kept (last_test null).
 */
async function alertTargetEntries(deps: IntegrationDeps): Promise<Integration[]> {
  return (await listTargets(deps)).map((target) => ({
    kind: 'alert-target',
    id: target.id,
    title: `Alert target: ${target.name}`,
    configured: target.enabled,
    source: target.source,
    variables: target.source === 'environment' ? ['ALERT_URL', 'ALERT_FORMAT', 'ALERT_TOKEN'] : [],
    fields: { target_kind: target.kind, enabled: target.enabled, ...target.fields },
    secrets: target.kind === 'json' ? ['token'] : [...alertTargetKinds[target.kind].secrets],
    last_test: null,
    updated_at: target.updated_at,
  }));
}

export async function listIntegrations(deps: IntegrationDeps): Promise<Integration[]> {
  const rows = new Map((await listIntegrationRows(deps.sql)).map((row) => [row.kind, row]));
  const tests = await environmentTests(deps.sql);
  return [
    ...integrationKinds.map((kind) =>
      entry(kind, rows.get(kind), settingsFromEnvironment(deps.config, kind), tests.get(kind) ?? null),
    ),
    ...(await alertTargetEntries(deps)),
  ];
}

function refuseIfEnvironment(deps: IntegrationDeps, kind: IntegrationKind): void {
  if (!settingsFromEnvironment(deps.config, kind)) return;
  const [first, second] = environmentVariables[kind];
  const named =
    kind === 'stt' || kind === 'assistant' || kind === 'karakeep' || kind === 'docker'
      ? first
      : `${first} and ${second}`;
  throw hubError(
    'SET_BY_ENVIRONMENT',
    `the ${kind} integration is set by the environment (${named}): change it there, or unset ${named} to manage ` +
      'it here',
  );
}

/**
 * The values a request means: its fields, and for each secret the one it sends, none when it sends null, or the
 * stored one when it leaves the secret out. Every secret the kind needs must end up set.
 */
async function valuesOf(
  deps: IntegrationDeps,
  kind: IntegrationKind,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const definition = kinds[kind];
  const row = await findIntegrationRow(deps.sql, kind);
  const needsStored = definition.secrets.some((field) => body[field] === undefined && row?.secrets[field]);
  const stored = row && needsStored ? await openedValues(deps.config, row) : {};
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (value !== null && value !== undefined) values[field] = value;
  }
  for (const field of definition.secrets) {
    if (body[field] === undefined && stored[field] !== undefined) values[field] = stored[field];
  }
  const missing = definition.requiredSecrets.filter((field) => values[field] === undefined);
  if (missing.length > 0) {
    throw hubError('VALIDATION_FAILED', `the ${kind} integration needs ${missing.join(' and ')}`);
  }
  if (kind === 'weather') {
    const timezone = values.timezone as string | undefined;
    if (
      timezone &&
      timezone !== 'auto' &&
      timezone !== 'UTC' &&
      !Intl.supportedValuesOf('timeZone').includes(timezone)
    ) {
      throw hubError(
        'VALIDATION_FAILED',
        `timezone must be an IANA time zone such as Europe/Berlin, or auto`,
      );
    }
  }
  if (kind === 'docker' && (values.client_certificate === undefined) !== (values.client_key === undefined)) {
    throw hubError(
      'VALIDATION_FAILED',
      'client_certificate and client_key go together: give both, or neither',
    );
  }
  return values;
}

async function run(deps: IntegrationDeps, kind: IntegrationKind, values: Record<string, unknown>) {
  const result = await checkIntegration(
    kind,
    settingsFromValues(kind, values),
    deps.config.dashboard.upstreamTimeoutMs,
  );
  return { ...result, tested_at: new Date() } satisfies TestResult;
}

export async function saveIntegration(
  deps: IntegrationDeps,
  kind: IntegrationKind,
  body: Record<string, unknown>,
  options: { test: boolean },
): Promise<Integration> {
  refuseIfEnvironment(deps, kind);
  const values = await valuesOf(deps, kind, body);
  const tested = options.test ? await run(deps, kind, values) : null;
  if (tested && !tested.ok) {
    const failed = hubError(
      'INTEGRATION_TEST_FAILED',
      `nothing was saved: the ${kinds[kind].title} test failed: ${tested.message}`,
    );
    throw new HubError(failed.code, failed.message, { test: tested });
  }
  const { key } = await secretKeyOf(deps.config.server);
  const fields: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const [field, value] of Object.entries(values)) {
    if ((kinds[kind].secrets as readonly string[]).includes(field)) {
      secrets[field] = sealSecret(key, { kind, field }, String(value));
    } else {
      fields[field] = value;
    }
  }
  const row = await saveIntegrationRow(deps.sql, { kind, fields, secrets, last_test: tested });
  return entry(kind, row, null);
}

/** Tests the given values (stored secrets filling in those left out), or else the settings in force. */
export async function testIntegration(
  deps: IntegrationDeps,
  kind: IntegrationKind,
  body: Record<string, unknown> | undefined,
): Promise<TestResult> {
  if (body !== undefined) return run(deps, kind, await valuesOf(deps, kind, body));
  const resolved = await integrationSettings(deps, kind);
  if (!resolved) throw hubError('INTEGRATION_NOT_CONFIGURED', kind);
  const result = {
    ...(await checkIntegration(kind, resolved.settings, deps.config.dashboard.upstreamTimeoutMs)),
    tested_at: new Date(),
  };
  if (resolved.source === 'settings') await recordIntegrationTest(deps.sql, kind, result);
  else await recordEnvironmentTest(deps.sql, kind, result);
  return result;
}
