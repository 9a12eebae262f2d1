// The health domain's tool: monitored services with their current state, read-only (registry writes are the owner's).

import { named } from '../mcp/schema.ts';
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { Service, ServiceGroups, ServiceGroupsQuery } from './schema.ts';
import { serviceGroups } from './services.ts';

named.Service = Service;

export const healthTools: Tool[] = [
  tool({
    name: 'service_health',
    title: 'Service health',
    description:
      'Monitored services grouped by category with their current state (up, down, pending, unknown), latency, ' +
      'last check, since when, the failure message and 24-hour uptime.',
    input: closed(ServiceGroupsQuery),
    output: ServiceGroups,
    readOnly: true,
    run: (args, ctx) => serviceGroups(ctx.sql, args),
  }),
];
