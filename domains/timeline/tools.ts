// The timeline's tool: the same reading as GET /api/timeline (a scoped agent sees its space's and global events).
import { named } from '../mcp/schema.ts';
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { readTimeline } from './read.ts';
import { TimelineEvent, TimelinePage, TimelineQuery } from './schema.ts';

named.TimelineEvent = TimelineEvent;

export const timelineTools: Tool[] = [
  tool({
    name: 'timeline',
    title: 'Timeline',
    description:
      'What happened in the hub and the home lab, newest first: services going down and up, devices seen, backups, ' +
      'speed tests, approvals, page and task edits, captures, failed jobs, alerts, maintenance. Filter by since / ' +
      'until (ISO times), kinds (comma-separated, `device.*` for an area), subject (`type:id`, e.g. ' +
      '`service:<id>`), q (words); page on with the answer’s next_cursor.',
    input: closed(TimelineQuery),
    output: TimelinePage,
    readOnly: true,
    run: (args, ctx) => readTimeline(ctx.sql, ctx.principal, args),
  }),
];
