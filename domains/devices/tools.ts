// The devices domain's tool: the LAN device inventory, read-only (every device write is the owner's).

import { named } from '../mcp/schema.ts';
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { deviceList } from './list.ts';
import { Device, DeviceList, DeviceListQuery } from './schema.ts';

named.Device = Device;

export const deviceTools: Tool[] = [
  tool({
    name: 'list_devices',
    title: 'List LAN devices',
    description:
      'The LAN device inventory in bands (new, known, ignored): MAC, IP, names, vendor, presence; filter by ' +
      'status, present or q (name, host name, IP, MAC, vendor).',
    input: closed(DeviceListQuery),
    output: DeviceList,
    readOnly: true,
    run: (args, ctx) => deviceList(ctx.sql, args),
  }),
];
