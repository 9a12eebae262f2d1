// An app as the API shows it: where its tile's picture comes from (its iconRef, else the favicon the hub found).
import { iconUrl } from '../../lib/icon-ref.ts';
import type { App } from './schema.ts';
import type { AppRow } from './store.ts';

export function presentApp(row: AppRow): App {
  const { has_favicon, ...app } = row;
  const icon_url = iconUrl(row.icon) ?? (has_favicon ? `/api/apps/${row.id}/icon` : null);
  return { ...app, icon_url };
}
