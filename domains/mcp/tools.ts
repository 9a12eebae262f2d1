// Every tool of the tool protocol, gathered from the domains that contribute them (each domain's tools.ts), the way
// worker/tasks.ts gathers executors. A domain adds its tools there and lists its array here.
import { actionTools } from '../actions/tools.ts';
import { appTools } from '../apps/tools.ts';
import { deviceTools } from '../devices/tools.ts';
import { healthTools } from '../health/tools.ts';
import { networkHostTools } from '../network-hosts/tools.ts';
import { pageTools } from '../pages/tools.ts';
import { pendingChangeTools } from '../pending-changes/tools.ts';
import { projectTools } from '../projects/tools.ts';
import { refTools } from '../refs/tools.ts';
import { resourceTools } from '../resources/tools.ts';
import { searchTools } from '../search/tools.ts';
import { sourceDocTools } from '../source-docs/tools.ts';
import { taskTools } from '../tasks/tools.ts';
import type { Tool } from './tool.ts';

export type { Tool, ToolContext } from './tool.ts';

export const tools: Tool[] = [
  ...searchTools,
  ...pageTools,
  ...projectTools,
  ...taskTools,
  ...refTools,
  ...sourceDocTools,
  ...resourceTools,
  ...networkHostTools,
  ...pendingChangeTools,
  ...deviceTools,
  ...healthTools,
  ...actionTools,
  ...appTools,
];

export const toolsByName = new Map(tools.map((entry) => [entry.name, entry]));
