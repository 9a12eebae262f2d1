// The apps domain's tool: the launcher's apps with their status, read-only (writes go through REST and approval).
import { named } from '../mcp/schema.ts';
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { appList } from './present.ts';
import { App, AppList, AppListQuery } from './schema.ts';

named.App = App;

export const appTools: Tool[] = [
  tool({
    name: 'list_apps',
    title: 'List apps',
    description:
      'The launcher’s apps by group: name, link, description, icon, and the status (up, down, pending, paused, ' +
      'unknown) and latency of the service each follows; filter by group or q.',
    input: closed(AppListQuery),
    output: AppList,
    readOnly: true,
    run: (args, ctx) => appList(ctx.sql, args),
  }),
];
