// Settings: one section per file, shown in this order. The theme (12 colours, previewed live, saved or reset),
// agents and their tokens (a new token shown once), icon sets (upload a zip, browse), voice (retention; record from
// the microphone and transcribe), public status pages, moving in from Homepage (its files' dry run, then the
// import), apps found by Docker, downstream MCP servers, and Data: the hub's own backups (run now, list, download),
// a space exported as Markdown or everything as JSON, and files imported after a preview.
import { Agents } from './agents.tsx';
import { Alerts } from './alerts.tsx';
import { Backups } from './backups.tsx';
import { DockerDiscovery } from './docker-discovery.tsx';
import { HomepageImport } from './homepage-import.tsx';
import { IconSets } from './icon-sets.tsx';
import { Integrations } from './integrations.tsx';
import { Maintenance } from './maintenance.tsx';
import { McpServers } from './mcp-servers.tsx';
import { Routines } from './routines.tsx';
import { StatusPages } from './status-pages.tsx';
import { Theme } from './theme.tsx';
import { Transfer } from './transfer.tsx';
import { Voice } from './voice.tsx';

export default function Settings() {
  return (
    <div>
      <div class="page-head">
        <h1>Settings</h1>
      </div>
      <div class="stack">
        <Theme />
        <Agents />
        <Routines />
        <IconSets />
        <Voice />
        <Integrations />
        <McpServers />
        <Alerts />
        <Maintenance />
        <StatusPages />
        <HomepageImport />
        <DockerDiscovery />
        <h2>Data</h2>
        <Backups />
        <Transfer />
      </div>
    </div>
  );
}
