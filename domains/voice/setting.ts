// The `voice` setting: whether transcribed audio is kept, and for how long.
import { defineSetting } from '../../lib/settings.ts';
import { VoiceSettings } from './schema.ts';

export const voiceSetting = defineSetting({
  key: 'voice',
  schema: VoiceSettings,
  defaultValue: { retain_clips: false, retention_days: 30 },
  description: 'Voice-clip retention: keep clips (default off) and for how many days',
});
