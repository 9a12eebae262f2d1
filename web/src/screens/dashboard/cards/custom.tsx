// The custom card: the values the hub reads from the card's JSON endpoint (POST /api/dashboard/custom), refreshed at
// the card's interval; an upstream that fails shows its reason.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../../api.d.ts';
import { api, ok } from '../../../client.ts';
import { activeBoard } from '../boards.ts';

type Read = paths['/api/dashboard/custom']['post'];
type CustomConfig = Read['requestBody']['content']['application/json'];
type CustomData = Read['responses'][200]['content']['application/json'];

export function CustomCard({ id, config }: { id: string; config: Record<string, unknown> }) {
  const data = useSignal<CustomData | null>(null);
  const failure = useSignal<string | null>(null);
  // The card's stored headers are write-only: the hub sends them when the read names the saved card.
  const board = activeBoard.value;
  const body = {
    ...(config as unknown as CustomConfig),
    card_id: id,
    board_id: board && !board.is_default ? board.id : undefined,
  };
  const key = JSON.stringify(config);
  useEffect(() => {
    if (typeof body.url !== 'string' || !Array.isArray(body.fields)) return;
    const load = () =>
      ok(api.POST('/api/dashboard/custom', { body }))
        .then((answer) => {
          data.value = answer;
          failure.value = null;
        })
        .catch((error: unknown) => {
          failure.value = (error as Error)?.message ?? 'the card could not be read';
        });
    void load();
    const timer = setInterval(load, (body.interval_s ?? 60) * 1000);
    return () => clearInterval(timer);
  }, [key]);
  if (typeof body.url !== 'string') return <p class="muted">Set the card's url and fields.</p>;
  if (failure.value) return <p class="error">{failure.value}</p>;
  if (data.value === null) return <p class="muted">Loading…</p>;
  if (!data.value.ok) return <p class="error">{data.value.message}</p>;
  return (
    <dl class="custom-fields">
      {data.value.fields.map((field) => (
        <div key={field.label}>
          <dt>{field.label}</dt>
          <dd>{field.text}</dd>
        </div>
      ))}
    </dl>
  );
}
