// What a turn cost, recorded alike for a chat turn and a headless one (a routine, a diagnosis).
import type { AssistantRunnerConfig } from '../../config/assistant.ts';
import type { Db } from '../../plugins/db.ts';
import { recordUsage } from '../ai-usage/record.ts';
import type { RunnerEvent } from './events.ts';

type UsageEvent = Extract<RunnerEvent, { type: 'usage' }>;

/** The model a turn ran on: what the runner reported, else the configured model, else the runner's kind. */
export function turnModel(runner: AssistantRunnerConfig, usage: UsageEvent | null): string {
  return usage?.model ?? (runner.runner === 'openai' ? runner.model : null) ?? runner.runner;
}

export function recordTurnUsage(
  sql: Db,
  turn: {
    agentId: string;
    runner: AssistantRunnerConfig;
    usage: UsageEvent | null;
    latencyMs: number;
    ok: boolean;
  },
) {
  return recordUsage(sql, {
    agent_id: turn.agentId,
    source: `assistant:${turn.runner.runner}`,
    model: turnModel(turn.runner, turn.usage),
    input_tokens: turn.usage?.input_tokens ?? 0,
    output_tokens: turn.usage?.output_tokens ?? 0,
    latency_ms: turn.latencyMs,
    ok: turn.ok,
    local: turn.runner.runner === 'openai' && turn.runner.local,
  });
}
