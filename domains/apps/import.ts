// Moving in from Homepage: services become apps (with their icons mapped and their siteMonitor as a linked http
// check), bookmarks become refs of a space tagged (`source`) with their group, and the openmeteo widget sets the
// weather place. Everything is written in one transaction; a dry run does the same and rolls it back, so its report
// is exactly what an import would do. Apps are matched by group and name, refs by their link, checks by target:
// importing the same files again updates in place and creates nothing.

import type { Config } from '../../config/index.ts';
import { HubError } from '../../lib/errors.ts';
import { isWebUrl } from '../../lib/input.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { addDefaultBoardCard, layoutCache } from '../dashboard/layouts.ts';
import type { WriteContext } from '../entities/handler.ts';
import { applyEntityWriteIn } from '../entities/registry.ts';
import { ensureService, type WatchedTarget } from '../health/monitor.ts';
import { findBrand } from '../icons/brands.ts';
import { mdiExists } from '../icons/mdi.ts';
import { sealHubSecret } from '../integrations/keyring.ts';
import { writeSetting } from '../settings/registry.ts';
import { weatherSetting } from '../weather/setting.ts';
import { type HomepageService, parseYaml, readBookmarks, readServices, readWidgets } from './homepage.ts';
import type { HomepageImport, ImportReport } from './schema.ts';
import { findAppByName } from './store.ts';

class DryRun extends Error {
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('dry run');
    this.report = report;
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Homepage's icon as an iconRef: `mdi-x` → mdi:x, `si-x` → brand:x, `x.png`/`x.svg` → brand:x when the brand set has it. */
export async function mapIcon(icon: unknown): Promise<string | null> {
  const name = text(icon);
  if (!name) return null;
  const mdi = /^mdi-([a-z0-9-]+)(?:-#[0-9a-f]{6})?$/i.exec(name);
  if (mdi) return (await mdiExists(mdi[1].toLowerCase())) ? `mdi:${mdi[1].toLowerCase()}` : null;
  const si = /^si-([a-z0-9_-]+)(?:-#[0-9a-f]{6})?$/i.exec(name);
  if (si) {
    const slug = si[1].toLowerCase().replace(/-/g, '');
    return (await findBrand(slug)) ? `brand:${slug}` : null;
  }
  const bare = /^([a-z0-9_-]+)\.(png|svg|webp)$/i.exec(name);
  if (bare) {
    // Homepage's dashboard-icons spell names with dashes (home-assistant), simple-icons without (homeassistant).
    for (const slug of new Set([bare[1].toLowerCase(), bare[1].toLowerCase().replace(/[-_]/g, '')])) {
      if (await findBrand(slug)) return `brand:${slug}`;
    }
  }
  return null;
}

/** The owner's write context, with the configuration (a siteMonitor's credentials are sealed under its key). */
type ImportContext = WriteContext & { config: Config };

/** Homepage's `ping` names a host, or a URL whose host is pinged. */
function pingHost(value: string): string {
  try {
    const url = new URL(value);
    if (url.hostname) return url.hostname.replace(/^\[|\]$/g, '');
  } catch {
    // Not a URL: a host name or an address.
  }
  return value;
}

async function importService(
  tx: Db,
  ctx: ImportContext,
  service: HomepageService,
  report: ImportReport,
): Promise<void> {
  const { group, name, fields } = service;
  const where = { group, name };
  const href = text(fields.href);
  if (!href || !isWebUrl(href)) {
    report.skipped.push({ kind: 'app', ...where, reason: 'no http(s) href' });
    return;
  }
  if (fields.widget !== undefined) {
    const type = text((fields.widget as { type?: unknown } | null)?.type) ?? 'unknown';
    report.skipped.push({
      kind: 'widget',
      ...where,
      reason: `service widget of type ${type} is not imported`,
    });
  }
  let serviceId: string | undefined;
  // A check linked to the app: its siteMonitor (http), else its ping; the other is kept as a service of its own.
  const watch = async (target: WatchedTarget) => {
    const linked = await ensureService(tx, ctx.config.server, target).catch((error) => {
      if (error instanceof HubError) {
        report.skipped.push({ kind: 'service', ...where, reason: error.message });
        return undefined;
      }
      throw error;
    });
    if (linked === undefined) return;
    if (linked === null) {
      report.skipped.push({
        kind: 'service',
        ...where,
        reason: 'a discovered candidate checks this target: promote it in Services to link it',
      });
      return;
    }
    serviceId ??= linked.id;
    (linked.created ? report.created : report.updated).push({ kind: 'service', ...where });
  };
  const monitor = text(fields.siteMonitor);
  if (monitor) {
    if (!isWebUrl(monitor)) {
      report.skipped.push({ kind: 'service', ...where, reason: 'siteMonitor is not an http(s) URL' });
    } else {
      await watch({ kind: 'http', name, category: group, url: monitor });
    }
  }
  const ping = text(fields.ping);
  if (ping) await watch({ kind: 'ping', name, category: group, host: pingHost(ping) });
  const icon = await mapIcon(fields.icon);
  const iconName = text(fields.icon);
  if (iconName && icon === null) {
    report.skipped.push({
      kind: 'icon',
      ...where,
      reason: `icon "${iconName}" has no offline match (brand, mdi): the tile shows the app's initial`,
    });
  }
  const payload = {
    name,
    href,
    description: text(fields.description) ?? '',
    icon,
    group,
    ...(serviceId !== undefined ? { service_id: serviceId } : {}),
  };
  const existing = await findAppByName(tx, group, name);
  if (existing) {
    const { group: _group, name: _name, ...patch } = payload;
    await applyEntityWriteIn(
      tx,
      { entity_type: 'app', action: 'update', entity_id: existing.id, payload: patch },
      ctx,
    );
    report.updated.push({ kind: 'app', ...where });
  } else {
    await applyEntityWriteIn(tx, { entity_type: 'app', action: 'create', payload }, ctx);
    report.created.push({ kind: 'app', ...where });
  }
}

async function importBookmarks(
  tx: Db,
  ctx: WriteContext,
  data: unknown,
  spaceId: string | undefined,
  report: ImportReport,
): Promise<void> {
  for (const bookmark of readBookmarks(data)) {
    const where = { group: bookmark.group, name: bookmark.name };
    const href = text(bookmark.href);
    if (!href || !isWebUrl(href)) {
      report.skipped.push({ kind: 'ref', ...where, reason: 'no http(s) href' });
      continue;
    }
    const payload = {
      ...(spaceId ? { space_id: spaceId } : {}),
      source: bookmark.group.slice(0, 100),
      external_id: href.slice(0, 500),
      url: href,
      title: bookmark.name,
      notes: text(bookmark.description) ?? '',
    };
    const result = await applyEntityWriteIn(tx, { entity_type: 'ref', action: 'upsert', payload }, ctx);
    (result.created ? report.created : report.updated).push({ kind: 'ref', ...where });
  }
}

async function importWidgets(tx: Db, ctx: ImportContext, data: unknown, report: ImportReport): Promise<void> {
  for (const widget of readWidgets(data)) {
    const name = widget.type;
    if (widget.type === 'openmeteo') {
      const { latitude, longitude, label, units, timezone } = widget.options;
      const value = {
        ...(typeof latitude === 'number' && typeof longitude === 'number' ? { latitude, longitude } : {}),
        ...(text(label) ? { label: text(label)?.slice(0, 100) } : {}),
        ...(units === 'metric' || units === 'imperial' ? { units } : {}),
        ...(text(timezone) ? { timezone: text(timezone)?.slice(0, 64) } : {}),
      };
      await writeSetting(tx, weatherSetting, value);
      report.updated.push({ kind: 'setting', name: 'weather' });
    } else if (widget.type === 'resources') {
      // Homepage's host resources are the dashboard's host card; a board that has one keeps it as it is.
      const added = await addDefaultBoardCard(tx, 'host', (place, value) =>
        sealHubSecret(ctx.config.server, place, value),
      );
      if (added) report.created.push({ kind: 'widget', name });
      else report.skipped.push({ kind: 'widget', name, reason: 'the dashboard already has a host card' });
    } else {
      const reason = `information widget of type ${widget.type} is not imported`;
      report.skipped.push({ kind: 'widget', name, reason });
    }
  }
}

/** Imports (or, with dry_run, rehearses) Homepage's files as the owner (`ctx`). */
export async function importHomepage(
  sql: Sql,
  ctx: ImportContext,
  input: HomepageImport,
): Promise<ImportReport> {
  // Every file is parsed before anything is written: a malformed one imports nothing.
  const services = input.services === undefined ? [] : readServices(parseYaml('services', input.services));
  const bookmarks = input.bookmarks === undefined ? undefined : parseYaml('bookmarks', input.bookmarks);
  const widgets = input.widgets === undefined ? undefined : parseYaml('widgets', input.widgets);
  const dryRun = input.dry_run ?? false;
  try {
    const done = (await sql.begin(async (tx) => {
      const report: ImportReport = { dry_run: dryRun, created: [], updated: [], skipped: [] };
      for (const service of services) await importService(tx, ctx, service, report);
      if (bookmarks !== undefined) await importBookmarks(tx, ctx, bookmarks, input.space_id, report);
      if (widgets !== undefined) await importWidgets(tx, ctx, widgets, report);
      if (dryRun) throw new DryRun(report);
      return report;
    })) as ImportReport;
    // The dashboard answers layouts from memory: a card added above is seen once the import has committed.
    if (done.created.some((item) => item.kind === 'widget')) layoutCache(sql).clear();
    return done;
  } catch (error) {
    if (error instanceof DryRun) return error.report;
    throw error;
  }
}
