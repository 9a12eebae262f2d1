// Voice: transcription through the configured speech-to-text adapter, and the clips kept when retention is on.
// Every route is the owner's. Routes:
//   POST   /api/voice/transcribe        multipart `file` (+ optional `language`): the transcript
//   GET    /api/voice/settings          retention
//   PUT    /api/voice/settings
//   GET    /api/voice/clips             retained clips, newest first (paginated)
//   GET    /api/voice/clips/:id/audio   the audio, with byte ranges for seeking
//   DELETE /api/voice/clips/:id         file and row
import multipart from '@fastify/multipart';
import { send } from '@fastify/send';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { discardFile, type ReceivedFile, readForm } from '../../lib/incoming.ts';
import { errors, IdParams, NoContent, PageQuery, Paginated } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { readSetting, writeSetting } from '../settings/registry.ts';
import { headerDuration, sniffAudio } from './audio.ts';
import { clipPath, removeClip, retainClip } from './clips.ts';
import { voiceCron, voiceTasks } from './jobs.ts';
import { Transcription, VoiceClip, VoiceSettings } from './schema.ts';
import { voiceSetting } from './setting.ts';
import { findClip, listClips } from './store.ts';
import { transcribe } from './stt.ts';

const tags = ['voice'];
const languagePattern = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$/;

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app;
  app.addSchema(VoiceClip);
  await app.register(multipart, {
    limits: { fileSize: config.voice.maxBytes, files: 1, fields: 2, fieldSize: 64, parts: 3 },
  });

  app.post(
    '/voice/transcribe',
    {
      schema: {
        tags,
        summary: 'Transcribe audio',
        description:
          'multipart/form-data with `file` (WAV, MP3, OGG/Opus, WebM, M4A/MP4 or FLAC, recognised by its bytes; ' +
          `at most VOICE_MAX_BYTES, now ${config.voice.maxBytes}) and optionally \`language\` (e.g. en). 503 ` +
          'STT_NOT_CONFIGURED without STT_PROVIDER; 502 STT_FAILED when the adapter fails or times out. With ' +
          'retention on, the clip is kept and its id returned.',
        consumes: ['multipart/form-data'],
        response: { 200: Transcription, ...errors(400, 401, 403, 413, 415, 502, 503) },
      },
    },
    async (request) => {
      if (!request.isMultipart())
        throw hubError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data with a file');
      // Streamed to disk as it arrives: the audio is never held whole in memory.
      const form = await readForm(request.parts(), {
        dataDir: config.server.dataDir,
        maxBytes: config.voice.maxBytes,
        limitName: 'VOICE_MAX_BYTES',
        fields: ['language'],
        onField: (_name, value) => {
          if (value && !languagePattern.test(value)) {
            throw hubError('BAD_REQUEST', 'language must be a language code such as en or pt-BR');
          }
        },
      });
      const audio: ReceivedFile = form.file;
      const language = form.fields.language || null;
      try {
        if (audio.size === 0) throw hubError('BAD_REQUEST', 'file is required');
        const type = sniffAudio(audio.head);
        if (!type) {
          throw hubError(
            'AUDIO_UNSUPPORTED',
            'the file is not WAV, MP3, OGG/Opus, WebM, M4A/MP4 or FLAC audio',
          );
        }
        const stt = (await integrationSettings(app, 'stt'))?.settings;
        if (!stt) throw hubError('STT_NOT_CONFIGURED');
        const result = await transcribe(stt, { file: audio.path, type, language });
        const duration = result.duration_s ?? headerDuration(audio.head, audio.size, type);
        const settings = await readSetting(app.sql, voiceSetting);
        const answer = { text: result.text, language: result.language, duration_s: duration };
        if (!settings.retain_clips) return answer;
        const clip = await retainClip(app.sql, config.voice.clipsDir, {
          file: audio.path,
          size: audio.size,
          type,
          transcript: result.text,
          language: result.language,
          duration_s: duration,
          provider: stt.provider,
        });
        return { ...answer, clip_id: clip.id };
      } finally {
        // Kept as a clip (moved) or not wanted: nothing stays where it was received.
        await discardFile(audio);
      }
    },
  );

  app.get(
    '/voice/settings',
    { schema: { tags, summary: 'Clip retention', response: { 200: VoiceSettings, ...errors(401, 403) } } },
    async () => readSetting(app.sql, voiceSetting),
  );

  app.put(
    '/voice/settings',
    {
      schema: {
        tags,
        summary: 'Change clip retention',
        body: VoiceSettings,
        response: { 200: VoiceSettings, ...errors(400, 401, 403) },
      },
    },
    async (request) => (await writeSetting(app.sql, voiceSetting, request.body)).value as VoiceSettings,
  );

  app.get(
    '/voice/clips',
    {
      schema: {
        tags,
        summary: 'Retained clips, newest first',
        querystring: PageQuery,
        response: { 200: Paginated(Type.Ref('VoiceClip')), ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ ...(await listClips(app.sql, request.query)), ...request.query }),
  );

  app.get(
    '/voice/clips/:id/audio',
    {
      schema: {
        tags,
        summary: 'A clip’s audio',
        description:
          'Supports a single byte range (Range: bytes=start-end) with 206, so an <audio> element can seek.',
        params: IdParams,
        produces: ['audio/*'],
        response: { 200: Type.Unknown(), 206: Type.Unknown(), ...errors(400, 401, 403, 404, 416) },
      },
    },
    async (request, reply) => {
      const clip = await findClip(app.sql, request.params.id);
      if (!clip) throw hubError('VOICE_CLIP_NOT_FOUND', request.params.id);
      // @fastify/send answers Range: one range is a 206 with Content-Range, several the whole file, none within the
      // file a 416. The content type and caching headers are the clip's own.
      const sent = await send(request.raw, clipPath(config.voice.clipsDir, clip.file_name), {
        contentType: false,
        cacheControl: false,
        etag: false,
        lastModified: false,
        index: false,
      });
      if (sent.statusCode === 404) throw hubError('VOICE_CLIP_FILE_MISSING', clip.id);
      if (sent.statusCode === 416) {
        reply.header('content-range', sent.headers['Content-Range']);
        throw hubError('RANGE_NOT_SATISFIABLE', `the clip has ${clip.size_bytes} bytes`);
      }
      if (sent.type === 'error') throw sent.metadata.error;
      return reply
        .status(sent.statusCode as 200 | 206) // or 304, to If-None-Match: *
        .headers(sent.headers)
        .header('cache-control', 'private, no-cache')
        .type(clip.content_type)
        .send(sent.stream);
    },
  );

  app.delete(
    '/voice/clips/:id',
    {
      schema: {
        tags,
        summary: 'Delete a clip, file and row',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await removeClip(app.sql, config.voice.clipsDir, request.params.id))) {
        throw hubError('VOICE_CLIP_NOT_FOUND', request.params.id);
      }
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'voice',
  routes: ownerOnly(plugin),
  tasks: voiceTasks,
  cron: voiceCron,
  settings: [voiceSetting],
} satisfies HubModule;
