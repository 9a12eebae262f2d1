import { type Static, Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const VoicePurgePayload = Type.Object({}, { additionalProperties: false });

export const VoiceSettings = Type.Object(
  {
    retain_clips: Type.Boolean({ description: 'Keep the audio and transcript of each transcription' }),
    retention_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      description: 'Clips older than this are deleted',
    }),
  },
  { additionalProperties: false },
);
export type VoiceSettings = Static<typeof VoiceSettings>;

export const Transcription = Type.Object({
  text: Type.String(),
  language: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  duration_s: Type.Union([Type.Number(), Type.Null()]),
  clip_id: Type.Optional(Type.String({ format: 'uuid', description: 'Set when the clip was retained' })),
});
export type Transcription = Static<typeof Transcription>;

export const VoiceClip = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    content_type: Type.String(),
    size_bytes: Type.Integer(),
    duration_s: Type.Union([Type.Number(), Type.Null()]),
    language: Type.Union([Type.String(), Type.Null()]),
    transcript: Type.String(),
    provider: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'VoiceClip' },
);
export type VoiceClip = Static<typeof VoiceClip>;
export type VoiceClipRow = VoiceClip & { file_name: string };

export const voicePurgeTask = defineTask({
  name: 'voice.purge',
  payload: VoicePurgePayload,
  description: 'Deletes retained voice clips older than the retention, file and row',
});
