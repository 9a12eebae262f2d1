// Devices as the API shows them: the band list of GET /api/devices and the list_devices tool.
import { iconUrl } from '../icons/icon-ref.ts';
import type { Device } from './schema.ts';
import { type DeviceFilter, type DeviceRow, listDevices } from './store.ts';

export function presentDevice(row: DeviceRow): Device {
  return { ...row, icon_url: iconUrl(row.icon) };
}

/** The band list in the API's shape (also the `list_devices` tool). */
export async function deviceList(sql: Parameters<typeof listDevices>[0], filter: DeviceFilter) {
  const { items, total } = await listDevices(sql, filter);
  return { items: items.map(presentDevice), total, limit: filter.limit, offset: filter.offset };
}
