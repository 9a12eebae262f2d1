// Video captures: the video's oEmbed metadata (title, channel) through the guarded client, and optionally a
// transcript from a configured command such as yt-dlp.
//
// The transcript command (VIDEO_TRANSCRIPT_COMMAND) is split on blanks (quotes group words; no shell is involved)
// and run with the video URL appended as its last argument, in a fresh empty temporary directory as its working
// directory, with only PATH, HOME and LANG in its environment (never a secret), under VIDEO_TRANSCRIPT_TIMEOUT_MS.
// A subtitle file it writes into that directory (.vtt, .srt or .txt; the first by name) becomes the transcript,
// else its standard output does. For example:
//   yt-dlp --skip-download --write-subs --write-auto-subs --sub-langs "en.*" --sub-format vtt -o transcript
// A missing program, a failure, a timeout or empty output leaves the document with the metadata only; the
// document's metadata says why.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config/index.ts';
import {
  CommandError,
  childEnvironment,
  commandProblem,
  runCommand,
  splitCommand,
} from '../../lib/command.ts';
import { tidyText } from '../../lib/extract.ts';
import { safeFetch } from '../../lib/safe-fetch.ts';
import { PermanentJobError } from '../../worker/errors.ts';
import { fetchFailure, ingestFetchOptions, statusFailure } from './fetching.ts';

export interface OEmbed {
  title?: string;
  author_name?: string;
  author_url?: string;
  provider_name?: string;
  thumbnail_url?: string;
}

const maxOembedBytes = 256 * 1024;
const maxTranscriptBytes = 8 * 1024 * 1024;

function stringField(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

type OembedConfig = Pick<Config, 'capture' | 'ingest'>;

export async function fetchOembed(config: OembedConfig, videoUrl: string): Promise<OEmbed> {
  const endpoint = new URL(config.capture.video.oembedUrl);
  endpoint.searchParams.set('url', videoUrl);
  endpoint.searchParams.set('format', 'json');
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(endpoint.href, {
      ...ingestFetchOptions(config, maxOembedBytes),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw fetchFailure(error, 'video metadata (oEmbed) fetch failed');
  }
  if (response.status >= 400) {
    const failure = statusFailure(response.status, endpoint.origin + endpoint.pathname, 'video metadata');
    // 401, 403 and 404 are how oEmbed providers say private, removed or unknown.
    if (failure instanceof PermanentJobError) {
      throw new PermanentJobError(`${failure.message} (the video is private, removed or does not exist)`);
    }
    throw failure;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new PermanentJobError(
      `video metadata: the oEmbed endpoint answered with something that is not JSON`,
    );
  }
  if (typeof body !== 'object' || body === null) {
    throw new PermanentJobError('video metadata: the oEmbed answer is not a JSON object');
  }
  const fields = body as Record<string, unknown>;
  const oembed: OEmbed = {};
  for (const key of ['title', 'author_name', 'author_url', 'provider_name', 'thumbnail_url'] as const) {
    const value = stringField(fields[key]);
    if (value !== undefined) oembed[key] = value;
  }
  return oembed;
}

/** WebVTT or SRT to plain text: cue numbers, timings, headers and inline tags go; repeated lines collapse. */
export function subtitleText(subtitles: string): string {
  const lines: string[] = [];
  let skippingBlock = false;
  for (const raw of subtitles.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') {
      skippingBlock = false;
      continue;
    }
    if (skippingBlock) continue;
    if (/^(WEBVTT|NOTE|STYLE|REGION)\b/.test(line)) {
      skippingBlock = true;
      continue;
    }
    if (/^\d+$/.test(line) || line.includes('-->')) continue;
    const text = line
      .replace(/<[^>]*>/g, '')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&nbsp;/g, ' ')
      .trim();
    // Auto-generated captions repeat each line in the next cue as it scrolls.
    if (text && text !== lines.at(-1)) lines.push(text);
  }
  return lines.join('\n');
}

export type TranscriptOutcome =
  | { ok: true; text: string; source: 'file' | 'stdout'; file?: string }
  | { ok: false; reason: string };

export async function runTranscriptCommand(
  command: string,
  videoUrl: string,
  timeoutMs: number,
): Promise<TranscriptOutcome> {
  const argv = splitCommand(command);
  if (argv.length === 0) return { ok: false, reason: 'VIDEO_TRANSCRIPT_COMMAND is empty' };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-transcript-'));
  try {
    let stdout: string;
    try {
      const result = await runCommand([...argv, videoUrl], {
        cwd: dir,
        timeoutMs,
        maxOutputBytes: maxTranscriptBytes,
        env: childEnvironment({ HOME: process.env.HOME ?? dir }),
      });
      const problem = commandProblem('transcript command', result, timeoutMs);
      if (problem) return { ok: false, reason: problem };
      stdout = result.stdout;
    } catch (error) {
      if (error instanceof CommandError) {
        const how = error.reason === 'not-executable' ? 'not executable' : 'not found';
        return { ok: false, reason: `transcript command ${how}: ${argv[0]}` };
      }
      throw error;
    }
    const files = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && /\.(vtt|srt|txt)$/i.test(entry.name))
      .map((entry) => entry.name)
      .sort();
    if (files.length > 0) {
      const raw = await readFile(path.join(dir, files[0]));
      const text = subtitleText(raw.subarray(0, maxTranscriptBytes).toString('utf8'));
      if (text) return { ok: true, text, source: 'file', file: files[0] };
    }
    const text = /^\uFEFF?WEBVTT/.test(stdout) ? subtitleText(stdout) : tidyText(stdout);
    if (text) return { ok: true, text, source: 'stdout' };
    return { ok: false, reason: 'transcript command produced no transcript' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
