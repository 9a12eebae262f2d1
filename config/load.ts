// Every setting of the hub comes from the environment (and an optional .env file), validated once at start and
// grouped by area as README's configuration section is. A bad value stops start-up with a ConfigError naming the
// variable, so misconfiguration is never silent.
import { type AccessConfig, access } from './access.ts';
import { type AssistantConfig, assistant } from './assistant.ts';
import { type BackupConfig, backup } from './backup.ts';
import { type CaptureConfig, capture, type IngestConfig, ingest } from './capture.ts';
import { type DashboardConfig, dashboard } from './dashboard.ts';
import { type DevicesConfig, devices } from './devices.ts';
import { type DockerConfig, docker } from './docker.ts';
import { ConfigError, type Env, environment } from './env.ts';
import {
  type AlertsConfig,
  alerts,
  type DiscoveryConfig,
  discovery,
  type HealthConfig,
  health,
} from './health.ts';
import { type HttpConfig, http } from './http.ts';
import { type IconsConfig, icons } from './icons.ts';
import { type DatabaseConfig, database, type JobsConfig, jobs, type ServerConfig, server } from './server.ts';
import { type SpeedtestConfig, speedtest } from './speedtest.ts';
import { type VoiceConfig, voice } from './voice.ts';

export interface Config {
  server: ServerConfig;
  database: DatabaseConfig;
  jobs: JobsConfig;
  http: HttpConfig;
  access: AccessConfig;
  capture: CaptureConfig;
  ingest: IngestConfig;
  icons: IconsConfig;
  speedtest: SpeedtestConfig;
  voice: VoiceConfig;
  assistant: AssistantConfig;
  devices: DevicesConfig;
  health: HealthConfig;
  alerts: AlertsConfig;
  discovery: DiscoveryConfig;
  dashboard: DashboardConfig;
  backup: BackupConfig;
  docker: DockerConfig;
}

export function loadConfig(env: Env = environment()): Config {
  const serverConfig = server(env);
  return {
    server: serverConfig,
    database: database(env),
    jobs: jobs(env),
    http: http(env),
    access: access(env),
    capture: capture(env),
    ingest: ingest(env),
    icons: icons(env),
    speedtest: speedtest(env),
    voice: voice(env, serverConfig.dataDir),
    assistant: assistant(env),
    devices: devices(env),
    health: health(env),
    alerts: alerts(env),
    discovery: discovery(env),
    dashboard: dashboard(env),
    backup: backup(env, serverConfig.dataDir),
    docker: docker(env),
  };
}

/** The configuration, or one line naming the bad variable on stderr and exit status 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
}
