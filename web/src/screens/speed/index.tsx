// Speed tests: download, upload and ping over time (uPlot), run now, the schedule and the thresholds.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { ago, dateTime } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Answer, SpeedtestResult } from '../../types.ts';

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function Chart({ results }: { results: SpeedtestResult[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const ok = results.filter((r) => r.status === 'ok').reverse();
    const data: uPlot.AlignedData = [
      ok.map((r) => new Date(r.measured_at).getTime() / 1000),
      ok.map((r) => r.download_mbps),
      ok.map((r) => r.upload_mbps),
      ok.map((r) => r.ping_ms),
    ];
    const axis = {
      stroke: cssVar('--text-muted'),
      grid: { stroke: cssVar('--border'), width: 1 },
      ticks: { stroke: cssVar('--border') },
    };
    const plot = new uPlot(
      {
        width: host.current.clientWidth,
        height: 280,
        series: [
          {},
          {
            label: 'Download',
            stroke: cssVar('--accent'),
            width: 2,
            scale: 'mbps',
            value: (_u, v) => (v == null ? '—' : `${v.toFixed(1)} Mbps`),
          },
          {
            label: 'Upload',
            stroke: cssVar('--accent-alt'),
            width: 2,
            scale: 'mbps',
            value: (_u, v) => (v == null ? '—' : `${v.toFixed(1)} Mbps`),
          },
          {
            label: 'Ping',
            stroke: cssVar('--warning'),
            width: 1.5,
            dash: [4, 4],
            scale: 'ms',
            value: (_u, v) => (v == null ? '—' : `${v.toFixed(0)} ms`),
          },
        ],
        axes: [
          axis,
          { ...axis, scale: 'mbps', label: 'Mbps' },
          { ...axis, scale: 'ms', side: 1, label: 'ms', grid: { show: false } },
        ],
      },
      data,
      host.current,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: host.current?.clientWidth ?? 600, height: 280 }),
    );
    resize.observe(host.current);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [results]);
  return <div ref={host} class="chart" />;
}

type Settings = Answer<'/api/speedtest/settings'>;

export default function Speed() {
  const history = useData(() => ok(api.GET('/api/speedtest/history', { params: { query: { limit: 500 } } })));
  const saved = useData(() => ok(api.GET('/api/speedtest/settings')));
  // The form's own copy of the settings, from the hub's until the owner changes it.
  const edited = useSignal<Settings | null>(null);
  const settings = edited.value ?? saved.data ?? null;
  const change = (next: Partial<Settings>) => (edited.value = { ...settings!, ...next });
  const running = useSignal(false);
  const results = history.data?.items ?? [];

  async function runNow() {
    running.value = true;
    try {
      const run = await ok(api.POST('/api/speedtest/run'));
      toast(run.already_running ? 'A speed test is already running' : 'Speed test started', 'success');
    } catch (error) {
      failed(error);
    } finally {
      running.value = false;
    }
  }
  async function save(event: Event) {
    event.preventDefault();
    if (!settings) return;
    await ok(api.PUT('/api/speedtest/settings', { body: settings })).then((s) => {
      saved.set(s);
      edited.value = null;
      toast('Schedule saved', 'success');
    }, failed);
  }
  const threshold = (value: string) => (value === '' ? null : Number(value));
  const latest = results[0];
  return (
    <div>
      <div class="page-head">
        <h1>Speed tests</h1>
        <button type="button" class="primary" disabled={running.value} onClick={runNow}>
          <Icon name="play" size={14} /> Run now
        </button>
      </div>
      <div class="stats">
        <div class="panel stat">
          <span class="muted">Download</span>
          <div class="stat-value">
            <strong>{latest?.download_mbps?.toFixed(1) ?? '—'}</strong> <span class="muted">Mbps</span>
          </div>
        </div>
        <div class="panel stat">
          <span class="muted">Upload</span>
          <div class="stat-value">
            <strong>{latest?.upload_mbps?.toFixed(1) ?? '—'}</strong> <span class="muted">Mbps</span>
          </div>
        </div>
        <div class="panel stat">
          <span class="muted">Ping</span>
          <div class="stat-value">
            <strong>{latest?.ping_ms?.toFixed(0) ?? '—'}</strong> <span class="muted">ms</span>
          </div>
        </div>
        <div class="panel stat">
          <span class="muted">Last run</span>
          <strong class="smaller">{ago(latest?.measured_at)}</strong>
        </div>
      </div>
      <section class="panel" aria-label="History chart">
        <div class="panel-head">
          <h2>History</h2>
        </div>
        {results.length === 0 ? (
          <p class="muted empty">No results yet: run one now.</p>
        ) : (
          <Chart results={results} />
        )}
      </section>
      <div class="grid-2 section-gap">
        {settings && (
          <form class="panel stack" onSubmit={save}>
            <h2>Schedule and thresholds</h2>
            <label class="check">
              <input
                type="checkbox"
                checked={settings.enabled}
                onChange={(e) => change({ enabled: e.currentTarget.checked })}
              />
              Run on a schedule
            </label>
            <label>
              Schedule (cron, hub's local time)
              <input value={settings.schedule} onInput={(e) => change({ schedule: e.currentTarget.value })} />
            </label>
            <div class="row">
              <label>
                Alert below download (Mbps)
                <input
                  type="number"
                  min="0"
                  step="any"
                  value={settings.low_download_mbps ?? ''}
                  onInput={(e) => change({ low_download_mbps: threshold(e.currentTarget.value) })}
                />
              </label>
              <label>
                Alert below upload (Mbps)
                <input
                  type="number"
                  min="0"
                  step="any"
                  value={settings.low_upload_mbps ?? ''}
                  onInput={(e) => change({ low_upload_mbps: threshold(e.currentTarget.value) })}
                />
              </label>
            </div>
            <div>
              <button type="submit" class="primary">
                Save
              </button>
            </div>
          </form>
        )}
        <section class="panel" aria-label="Recent results">
          <h2>Recent results</h2>
          {results.length === 0 && <p class="muted">Nothing measured yet.</p>}
          <Table
            rows={results.slice(0, 8)}
            row={(r) => (
              <tr key={r.id}>
                <td class="muted">{dateTime(r.measured_at)}</td>
                <td>
                  {r.status === 'ok' ? (
                    `${r.download_mbps?.toFixed(1)} / ${r.upload_mbps?.toFixed(1)} Mbps · ${r.ping_ms?.toFixed(0)} ms`
                  ) : (
                    <span class="error">{r.error ?? 'failed'}</span>
                  )}
                </td>
                <td>{r.below_threshold && <span class="badge warning">slow</span>}</td>
              </tr>
            )}
          />
        </section>
      </div>
    </div>
  );
}
