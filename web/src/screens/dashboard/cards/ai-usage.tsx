// The AI usage card: tokens today and this week, requests, the top model, and local latency when local models ran.
import type { Answer } from '../../../types.ts';
import { compact, Figures, oneDecimal } from './parts.tsx';

export type AiUsage = Answer<'/api/ai-usage'>;

export function AiUsageCard({ data }: { data: AiUsage }) {
  const tokens = (period: AiUsage['today']) => compact.format(period.input_tokens + period.output_tokens);
  const items: [string, string][] = [
    ['tokens today', tokens(data.today)],
    ['this week', tokens(data.week)],
    ['requests today', String(data.today.requests)],
    ['top model', data.top_model ?? '—'],
  ];
  if (data.local.requests > 0) items.push(['local p50', `${oneDecimal(data.local.p50_latency_ms)} ms`]);
  return <Figures items={items} />;
}
