// Assistant (README, Configuration).
import { ConfigError, type Env, httpUrl, integer, optionalUrl, secret, text } from './env.ts';

export type AssistantRunnerConfig =
  | { runner: 'command'; command: string; timeoutMs: number; historyMessages: number }
  | {
      runner: 'openai';
      url: string;
      model: string;
      apiKey: string | null;
      timeoutMs: number;
      historyMessages: number;
      maxRounds: number;
      /** The model runs on the owner's machines (the URL is loopback or a private address): counted as local usage. */
      local: boolean;
    };

export interface AssistantConfig {
  /** null when ASSISTANT_RUNNER is unset. */
  runner: AssistantRunnerConfig | null;
  /** The hub's base URL as a runner on this machine reaches it (HUB_MCP_URL is derived from it); null: the listening address. */
  hubUrl: string | null;
}

function isLocalHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    name === 'localhost' ||
    name.endsWith('.local') ||
    name.endsWith('.lan') ||
    name.endsWith('.home.arpa') ||
    /^127\./.test(name) ||
    /^10\./.test(name) ||
    /^192\.168\./.test(name) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(name) ||
    name === '::1' ||
    /^f[cd][0-9a-f]{2}:/.test(name) ||
    !name.includes('.')
  );
}

function runner(env: Env): AssistantRunnerConfig | null {
  const runner = text(env, 'ASSISTANT_RUNNER');
  if (runner === null) return null;
  const timeoutMs = integer(env, 'ASSISTANT_TIMEOUT_MS', 300_000, 1000, 3_600_000);
  const historyMessages = integer(env, 'ASSISTANT_HISTORY_MESSAGES', 20, 0, 500);
  if (runner === 'command') {
    const command = text(env, 'ASSISTANT_COMMAND');
    if (command === null)
      throw new ConfigError('ASSISTANT_COMMAND', 'is required with ASSISTANT_RUNNER=command');
    return { runner, command, timeoutMs, historyMessages };
  }
  if (runner === 'openai') {
    if (text(env, 'ASSISTANT_OPENAI_URL') === null) {
      throw new ConfigError(
        'ASSISTANT_OPENAI_URL',
        'is required with ASSISTANT_RUNNER=openai (e.g. http://ollama.lan:11434/v1)',
      );
    }
    const model = text(env, 'ASSISTANT_MODEL');
    if (model === null) throw new ConfigError('ASSISTANT_MODEL', 'is required with ASSISTANT_RUNNER=openai');
    const url = httpUrl(env, 'ASSISTANT_OPENAI_URL', '').replace(/\/+$/, '');
    return {
      runner,
      url,
      model,
      apiKey: secret(env, 'ASSISTANT_API_KEY'),
      timeoutMs,
      historyMessages,
      maxRounds: integer(env, 'ASSISTANT_MAX_ROUNDS', 8, 1, 50),
      local: isLocalHost(new URL(url).hostname),
    };
  }
  throw new ConfigError('ASSISTANT_RUNNER', `must be command or openai (got "${runner}")`);
}

export function assistant(env: Env): AssistantConfig {
  return { runner: runner(env), hubUrl: optionalUrl(env, 'HUB_URL') };
}
