// Speech-to-text adapters, chosen by STT_PROVIDER; each bounded by STT_TIMEOUT_MS:
// - openai: an OpenAI-compatible server (speaches, faster-whisper-server, LocalAI, vLLM, OpenAI):
//   POST {STT_URL}/v1/audio/transcriptions, multipart file + model + response_format=json → { text }.
// - whispercpp: whisper.cpp's server: POST {STT_URL}/inference, multipart file + response_format=json → { text }, the
//   text starting with a space and one line per segment.
// - command: STT_COMMAND with the audio file's path appended (no shell, allow-listed environment); stdout is the text.
// The audio is read from its file as it is sent (a file-backed Blob, a copy for the program), never held in memory.
import { openAsBlob } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SttConfig } from '../../config/voice.ts';
import { CommandError, childEnvironment, outputTail, runCommand, splitCommand } from '../../lib/command.ts';
import { hubError } from '../../lib/errors.ts';
import { onFirstUse } from '../../lib/lazy.ts';
import { upstreamFetchDispatcher } from '../../lib/safe-fetch.ts';
import type { AudioType } from './audio.ts';

export interface SttResult {
  text: string;
  language: string | null;
  duration_s: number | null;
}

export interface SttInput {
  /** The audio file (an upload received to disk). */
  file: string;
  type: AudioType;
  language: string | null;
}

const maxTranscriptBytes = 1024 * 1024;
// STT_URL is the owner's server: on the LAN as likely as not, never cloud metadata.
const dispatcher = onFirstUse(() => upstreamFetchDispatcher());

function failed(message: string) {
  return hubError('STT_FAILED', `speech-to-text failed: ${message}`);
}

/** whisper.cpp's text: a leading space and a line per segment, joined into one paragraph. */
export function joinSegments(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

async function postForm(
  url: string,
  form: FormData,
  timeoutMs: number,
  headers: Record<string, string> = {},
) {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body: form,
      headers,
      dispatcher: dispatcher(),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw failed(`no answer within ${timeoutMs} ms`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw failed(
      `${new URL(url).host} could not be reached (${cause?.code ?? cause?.message ?? 'network error'})`,
    );
  }
  const body = await response.text().catch(() => '');
  if (!response.ok) {
    let reason = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { error?: { message?: string } | string; detail?: string };
      reason =
        (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ?? parsed.detail ?? reason;
    } catch {
      // Not JSON: the text is the reason.
    }
    throw failed(`the server answered ${response.status}${reason ? `: ${reason}` : ''}`);
  }
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw failed('the server answered something other than JSON');
  }
}

function audioBlob(input: SttInput): Promise<Blob> {
  return openAsBlob(input.file, { type: input.type.contentType });
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

async function openai(
  config: Extract<SttConfig, { provider: 'openai' }>,
  input: SttInput,
): Promise<SttResult> {
  const form = new FormData();
  form.set('file', await audioBlob(input), `audio.${input.type.extension}`);
  form.set('model', config.model);
  form.set('response_format', 'json');
  if (input.language) form.set('language', input.language);
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {};
  const body = await postForm(`${config.url}/v1/audio/transcriptions`, form, config.timeoutMs, headers);
  if (typeof body.text !== 'string') throw failed('the answer has no text');
  return {
    text: body.text.trim(),
    language: typeof body.language === 'string' ? body.language : input.language,
    duration_s: numberOrNull(body.duration),
  };
}

async function whispercpp(
  config: Extract<SttConfig, { provider: 'whispercpp' }>,
  input: SttInput,
): Promise<SttResult> {
  const form = new FormData();
  form.set('file', await audioBlob(input), `audio.${input.type.extension}`);
  form.set('response_format', 'json');
  form.set('temperature', '0.0');
  if (input.language) form.set('language', input.language);
  const body = await postForm(`${config.url}/inference`, form, config.timeoutMs);
  if (typeof body.text !== 'string')
    throw failed(typeof body.error === 'string' ? body.error : 'the answer has no text');
  return { text: joinSegments(body.text), language: input.language, duration_s: null };
}

async function command(
  config: Extract<SttConfig, { provider: 'command' }>,
  input: SttInput,
): Promise<SttResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-stt-'));
  try {
    const file = path.join(dir, `audio.${input.type.extension}`);
    await copyFile(input.file, file);
    const result = await runCommand([...splitCommand(config.command), file], {
      timeoutMs: config.timeoutMs,
      maxOutputBytes: maxTranscriptBytes,
      cwd: dir,
      env: childEnvironment(),
    }).catch((error: unknown) => {
      if (error instanceof CommandError) throw failed(`${error.message} (STT_COMMAND)`);
      throw error;
    });
    if (result.timedOut) throw failed(`STT_COMMAND took longer than ${config.timeoutMs} ms`);
    if (result.overflowed) throw failed('STT_COMMAND printed too much');
    if (result.code !== 0) {
      const said = outputTail(result.stderr);
      throw failed(`STT_COMMAND exited with status ${result.code ?? 'signal'}${said ? `: ${said}` : ''}`);
    }
    return { text: joinSegments(result.stdout), language: input.language, duration_s: null };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function transcribe(config: SttConfig | null, input: SttInput): Promise<SttResult> {
  if (!config) throw hubError('STT_NOT_CONFIGURED');
  if (config.provider === 'openai') return openai(config, input);
  if (config.provider === 'whispercpp') return whispercpp(config, input);
  return command(config, input);
}
