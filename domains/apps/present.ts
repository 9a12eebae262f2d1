// An app as the API shows it: where its tile's picture comes from (its iconRef, else the favicon the hub found).

import type { Db } from '../../plugins/db.ts';
import { iconUrl } from '../icons/icon-ref.ts';
import type { App, AppListQuery } from './schema.ts';
import { type AppRow, listApps } from './store.ts';

export function presentApp(row: AppRow): App {
  const { has_favicon, ...app } = row;
  const icon_url = iconUrl(row.icon) ?? (has_favicon ? `/api/apps/${row.id}/icon` : null);
  return { ...app, icon_url };
}

/** A page of apps, groups in the order of their first app, then positions (the route's and the tool's). */
export async function appList(sql: Db, query: AppListQuery) {
  const { items, total } = await listApps(sql, query);
  return { items: items.map(presentApp), total, limit: query.limit, offset: query.offset };
}
