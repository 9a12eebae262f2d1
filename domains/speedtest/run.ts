// One measurement: run SPEEDTEST_COMMAND (no shell, allow-listed environment, killed with its process group after
// SPEEDTEST_TIMEOUT_MS), read its output, and keep a row whatever happened, so failures show as gaps in history.
import type { Config } from '../../config/index.ts';
import { CommandError, childEnvironment, runCommand, splitCommand } from '../../lib/command.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { type NewEvent, recordEvent } from '../timeline/record.ts';
import { type Measurement, parseSpeedtestOutput } from './parse.ts';
import { type SpeedtestResult, type SpeedtestSettings, speedtestRunTask } from './schema.ts';
import { activeRunJob, insertResult, startRunLock } from './store.ts';

export const speedtestTask = speedtestRunTask.name;
const maxOutputBytes = 1024 * 1024;

type RunConfig = Pick<Config, 'speedtest'>;

export interface RunOutcome {
  measurement: Measurement | null;
  error: string | null;
  raw: string;
}

export async function measure(config: RunConfig): Promise<RunOutcome> {
  const argv = splitCommand(config.speedtest.command);
  try {
    const result = await runCommand(argv, {
      timeoutMs: config.speedtest.timeoutMs,
      maxOutputBytes,
      env: childEnvironment(),
    });
    const raw = [result.stdout, result.stderr ? `--- stderr ---\n${result.stderr}` : '']
      .filter(Boolean)
      .join('\n');
    if (result.timedOut) {
      return {
        measurement: null,
        error: `the speed test took longer than ${config.speedtest.timeoutMs} ms`,
        raw,
      };
    }
    if (result.overflowed) return { measurement: null, error: 'the speed test printed too much output', raw };
    const parsed = parseSpeedtestOutput(result.stdout, result.stderr);
    if (parsed.ok) return { measurement: parsed.measurement, error: null, raw };
    const status = result.code === 0 ? '' : ` (exit status ${result.code ?? 'signal'})`;
    return { measurement: null, error: `${parsed.error}${status}`, raw };
  } catch (error) {
    if (error instanceof CommandError) {
      return { measurement: null, error: `${error.message} (SPEEDTEST_COMMAND)`, raw: '' };
    }
    throw error;
  }
}

/** Whether a measurement is under either threshold of the settings. */
export function belowThreshold(measurement: Measurement | null, settings: SpeedtestSettings): boolean {
  if (!measurement) return false;
  const low = (value: number | null, threshold: number | null) =>
    value !== null && threshold !== null && value < threshold;
  return (
    low(measurement.download_mbps, settings.low_download_mbps) ||
    low(measurement.upload_mbps, settings.low_upload_mbps)
  );
}

export async function recordRun(
  sql: Db,
  run: RunOutcome,
  settings: SpeedtestSettings,
  job: { id: string | null; trigger: 'manual' | 'schedule' },
): Promise<SpeedtestResult> {
  const result = await insertResult(sql, {
    job_id: job.id,
    trigger: job.trigger,
    measurement: run.measurement,
    below_threshold: belowThreshold(run.measurement, settings),
    error: run.error,
    raw_output: run.raw.slice(0, maxOutputBytes),
  });
  await recordEvent(sql, speedtestEvent(result));
  return result;
}

const mbps = (value: number | null) => (value === null ? '?' : `${Math.round(value * 10) / 10}`);

/** The timeline's record of a run: a result, a slow one, or a failure. */
export function speedtestEvent(result: SpeedtestResult): NewEvent {
  const common = { subject: { type: 'speedtest', id: result.id }, actor: 'system' as const };
  if (result.status === 'failed') {
    return {
      ...common,
      kind: 'speedtest.failed',
      severity: 'warning',
      title: `Speed test failed: ${result.error ?? 'no result'}`,
      data: { error: result.error, trigger: result.trigger },
    };
  }
  return {
    ...common,
    kind: 'speedtest.completed',
    severity: result.below_threshold ? 'warning' : 'info',
    title:
      `Speed test: ${mbps(result.download_mbps)} Mbit/s down, ${mbps(result.upload_mbps)} up` +
      `${result.below_threshold ? ' (below the threshold)' : ''}`,
    data: {
      download_mbps: result.download_mbps,
      upload_mbps: result.upload_mbps,
      ping_ms: result.ping_ms,
      below_threshold: result.below_threshold,
      trigger: result.trigger,
    },
  };
}

/** Starts a run unless one is queued or running; then that run's job answers, so a burst of requests starts one. */
export async function startRun(sql: Sql): Promise<{ job_id: string; already_running: boolean }> {
  return sql.begin(async (tx) => {
    await startRunLock(tx, speedtestTask);
    const active = await activeRunJob(tx, speedtestTask);
    if (active) return { job_id: active, already_running: true };
    const job = await enqueue(tx, speedtestRunTask, { trigger: 'manual' });
    return { job_id: job.id, already_running: false };
  });
}
