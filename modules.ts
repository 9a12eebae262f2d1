// The composition root: the one list of the hub's domains. Each entry is a domain's module (its index.ts): app.ts
// registers their routes under /api in this order, and the worker, the settings, the entity writes, the MCP tools
// and /api/actions take their lists from it (module.ts gathers them). A new domain is a folder under domains/ and
// one line here.
import actions from './domains/actions/index.ts';
import agents from './domains/agents/index.ts';
import aiUsage from './domains/ai-usage/index.ts';
import alerts from './domains/alerts/index.ts';
import approvals from './domains/approvals/index.ts';
import apps from './domains/apps/index.ts';
import assistant from './domains/assistant/index.ts';
import audit from './domains/audit/index.ts';
import backups from './domains/backups/index.ts';
import boards from './domains/boards/index.ts';
import capture from './domains/capture/index.ts';
import dashboard from './domains/dashboard/index.ts';
import devices from './domains/devices/index.ts';
import docker from './domains/docker/index.ts';
import feeds from './domains/feeds/index.ts';
import health from './domains/health/index.ts';
import host from './domains/host/index.ts';
import hubBackup from './domains/hub-backup/index.ts';
import icons from './domains/icons/index.ts';
import incidents from './domains/incidents/index.ts';
import integrations from './domains/integrations/index.ts';
import jobs from './domains/jobs/index.ts';
import maintenance from './domains/maintenance/index.ts';
import mcp from './domains/mcp/index.ts';
import mcpServers from './domains/mcp-servers/index.ts';
import metrics from './domains/metrics/index.ts';
import networkHosts from './domains/network-hosts/index.ts';
import pageHistory from './domains/page-history/index.ts';
import pages from './domains/pages/index.ts';
import pendingChanges from './domains/pending-changes/index.ts';
import projects from './domains/projects/index.ts';
import proxmox from './domains/proxmox/index.ts';
import refs from './domains/refs/index.ts';
import resources from './domains/resources/index.ts';
import routines from './domains/routines/index.ts';
import search from './domains/search/index.ts';
import sessions from './domains/sessions/index.ts';
import settings from './domains/settings/index.ts';
import shlink from './domains/shlink/index.ts';
import sourceDocs from './domains/source-docs/index.ts';
import spaces from './domains/spaces/index.ts';
import speedtest from './domains/speedtest/index.ts';
import statusPages from './domains/status-pages/index.ts';
import system from './domains/system/index.ts';
import tags from './domains/tags/index.ts';
import tasks from './domains/tasks/index.ts';
import theme from './domains/theme/index.ts';
import timeline from './domains/timeline/index.ts';
import transfer from './domains/transfer/index.ts';
import trash from './domains/trash/index.ts';
import voice from './domains/voice/index.ts';
import weather from './domains/weather/index.ts';
import { gather, type HubModule } from './module.ts';

export const modules: readonly HubModule[] = [
  system,
  spaces,
  settings,
  theme,
  agents,
  capture,
  feeds,
  jobs,
  pages,
  pageHistory,
  trash,
  transfer,
  projects,
  tasks,
  refs,
  sourceDocs,
  resources,
  networkHosts,
  search,
  tags,
  pendingChanges,
  approvals,
  audit,
  mcp,
  speedtest,
  voice,
  icons,
  sessions,
  devices,
  health,
  maintenance,
  statusPages,
  metrics,
  dashboard,
  weather,
  host,
  proxmox,
  backups,
  hubBackup,
  shlink,
  assistant,
  aiUsage,
  actions,
  integrations,
  apps,
  boards,
  alerts,
  docker,
  mcpServers,
  timeline,
  incidents,
  routines,
];

/** Everything the modules contribute, gathered once. */
export const hub = gather(modules);
