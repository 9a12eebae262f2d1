// Well-known home-lab services, recognised from what a web port shows (page title, Server header) or, for other
// ports, from the port number: a suggested name, category and brand icon (simple-icons slugs) for a candidate.

export interface Suggestion {
  name: string;
  category: string;
  icon: string | null;
}

interface Known extends Suggestion {
  title?: RegExp;
  server?: RegExp;
}

const known: Known[] = [
  {
    name: 'Proxmox VE',
    category: 'Infrastructure',
    icon: 'brand:proxmox',
    title: /proxmox virtual environment|\bproxmox\b/i,
    server: /pve-api-daemon/i,
  },
  {
    name: 'Proxmox Backup Server',
    category: 'Infrastructure',
    icon: 'brand:proxmox',
    title: /proxmox backup server/i,
  },
  { name: 'Home Assistant', category: 'Home', icon: 'brand:homeassistant', title: /home assistant/i },
  { name: 'Jellyfin', category: 'Media', icon: 'brand:jellyfin', title: /jellyfin/i },
  { name: 'Plex', category: 'Media', icon: 'brand:plex', title: /\bplex\b/i },
  { name: 'Emby', category: 'Media', icon: 'brand:emby', title: /\bemby\b/i },
  { name: 'Grafana', category: 'Monitoring', icon: 'brand:grafana', title: /grafana/i },
  { name: 'Prometheus', category: 'Monitoring', icon: 'brand:prometheus', title: /prometheus/i },
  { name: 'Uptime Kuma', category: 'Monitoring', icon: 'brand:uptimekuma', title: /uptime kuma/i },
  { name: 'Netdata', category: 'Monitoring', icon: 'brand:netdata', title: /netdata/i },
  { name: 'Pi-hole', category: 'Network', icon: 'brand:pihole', title: /pi-?hole/i },
  { name: 'AdGuard Home', category: 'Network', icon: 'brand:adguard', title: /adguard/i },
  { name: 'OpenWrt', category: 'Network', icon: 'brand:openwrt', title: /openwrt|luci/i },
  { name: 'UniFi', category: 'Network', icon: 'brand:ubiquiti', title: /unifi/i },
  { name: 'Portainer', category: 'Infrastructure', icon: 'brand:portainer', title: /portainer/i },
  { name: 'TrueNAS', category: 'Storage', icon: 'brand:truenas', title: /truenas|freenas/i },
  { name: 'Synology DSM', category: 'Storage', icon: 'brand:synology', title: /synology|diskstation/i },
  { name: 'Unraid', category: 'Storage', icon: 'brand:unraid', title: /unraid/i },
  { name: 'Nextcloud', category: 'Apps', icon: 'brand:nextcloud', title: /nextcloud/i },
  { name: 'Syncthing', category: 'Apps', icon: 'brand:syncthing', title: /syncthing/i },
  { name: 'Immich', category: 'Media', icon: 'brand:immich', title: /immich/i },
  { name: 'Paperless-ngx', category: 'Apps', icon: 'brand:paperlessngx', title: /paperless/i },
  { name: 'Vaultwarden', category: 'Apps', icon: 'brand:vaultwarden', title: /vaultwarden|bitwarden/i },
  { name: 'Gitea', category: 'Apps', icon: 'brand:gitea', title: /gitea/i },
  { name: 'Node-RED', category: 'Home', icon: 'brand:nodered', title: /node-red/i },
  { name: 'Frigate', category: 'Home', icon: null, title: /frigate/i },
  { name: 'Sonarr', category: 'Media', icon: null, title: /sonarr/i },
  { name: 'Radarr', category: 'Media', icon: null, title: /radarr/i },
  { name: 'Traefik', category: 'Network', icon: 'brand:traefikproxy', title: /traefik/i },
  {
    name: 'Nginx Proxy Manager',
    category: 'Network',
    icon: 'brand:nginxproxymanager',
    title: /nginx proxy manager/i,
  },
];

/** A web page's service from its title and Server header, or null when it is none of the known ones. */
export function recogniseWeb(page: { title: string | null; server: string | null }): Suggestion | null {
  for (const entry of known) {
    if (
      (entry.title && page.title && entry.title.test(page.title)) ||
      (entry.server && page.server && entry.server.test(page.server))
    ) {
      return { name: entry.name, category: entry.category, icon: entry.icon };
    }
  }
  return null;
}

const wellKnownPorts: Record<number, Suggestion> = {
  21: { name: 'FTP', category: 'Network', icon: null },
  22: { name: 'SSH', category: 'Infrastructure', icon: null },
  23: { name: 'Telnet', category: 'Network', icon: null },
  25: { name: 'SMTP', category: 'Network', icon: null },
  53: { name: 'DNS', category: 'Network', icon: null },
  139: { name: 'NetBIOS', category: 'Storage', icon: null },
  445: { name: 'SMB', category: 'Storage', icon: null },
  554: { name: 'RTSP', category: 'Home', icon: null },
  1883: { name: 'MQTT', category: 'Home', icon: 'brand:mqtt' },
  2049: { name: 'NFS', category: 'Storage', icon: null },
  3306: { name: 'MySQL', category: 'Databases', icon: 'brand:mysql' },
  3389: { name: 'Remote Desktop', category: 'Infrastructure', icon: null },
  5432: { name: 'PostgreSQL', category: 'Databases', icon: 'brand:postgresql' },
  5900: { name: 'VNC', category: 'Infrastructure', icon: null },
  6379: { name: 'Redis', category: 'Databases', icon: 'brand:redis' },
  8883: { name: 'MQTT over TLS', category: 'Home', icon: 'brand:mqtt' },
  27017: { name: 'MongoDB', category: 'Databases', icon: 'brand:mongodb' },
};

/** A non-web port: named after its well-known service, or `Port N`. */
export function recognisePort(port: number): Suggestion {
  return wellKnownPorts[port] ?? { name: `Port ${port}`, category: 'Discovered', icon: null };
}

/** Ports where HTTPS is the likelier guess. */
export const tlsFirstPorts = new Set([443, 5001, 8006, 8443, 9443]);
