// Voice (README, Configuration).
import path from 'node:path';
import { ConfigError, type Env, httpUrl, integer, secret, text } from './env.ts';

export type SttConfig =
  | { provider: 'openai'; url: string; model: string; apiKey: string | null; timeoutMs: number }
  | { provider: 'whispercpp'; url: string; timeoutMs: number }
  | { provider: 'command'; command: string; timeoutMs: number };

export interface VoiceConfig {
  /** Speech-to-text; null when STT_PROVIDER is unset. */
  stt: SttConfig | null;
  /** Largest audio upload for transcription. */
  maxBytes: number;
  clipsDir: string;
}

function stt(env: Env): SttConfig | null {
  const provider = text(env, 'STT_PROVIDER');
  if (provider === null) return null;
  const timeoutMs = integer(env, 'STT_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  if (provider === 'openai' || provider === 'whispercpp') {
    if (text(env, 'STT_URL') === null)
      throw new ConfigError('STT_URL', `is required with STT_PROVIDER=${provider}`);
    const url = httpUrl(env, 'STT_URL', '').replace(/\/+$/, '');
    if (provider === 'whispercpp') return { provider, url, timeoutMs };
    return {
      provider,
      url,
      model: text(env, 'STT_MODEL') ?? 'whisper-1',
      apiKey: secret(env, 'STT_API_KEY'),
      timeoutMs,
    };
  }
  if (provider === 'command') {
    const command = text(env, 'STT_COMMAND');
    if (command === null) throw new ConfigError('STT_COMMAND', 'is required with STT_PROVIDER=command');
    return { provider, command, timeoutMs };
  }
  throw new ConfigError('STT_PROVIDER', `must be openai, whispercpp or command (got "${provider}")`);
}

export function voice(env: Env, dataDir: string): VoiceConfig {
  return {
    stt: stt(env),
    maxBytes: integer(env, 'VOICE_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    clipsDir: path.resolve(text(env, 'VOICE_CLIPS_DIR') ?? path.join(dataDir, 'voice-clips')),
  };
}
