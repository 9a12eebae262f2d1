// The `assistant` setting: how the assistant looks and sounds, and which agents it runs as.
import { defineSetting } from '../../lib/settings.ts';
import { assertIconRef } from '../icons/icon-ref.ts';
import { AssistantSettings } from './schema.ts';

export const assistantSetting = defineSetting({
  key: 'assistant',
  schema: AssistantSettings,
  defaultValue: {
    avatar: null,
    accent: '#4f9cf9',
    persona: '',
    voiceMode: 'off',
    agent_id: null,
    infra_agent_id: null,
  },
  description: 'Assistant avatar (iconRef or emoji), accent colour, persona, voice mode and agents',
  // An emoji is itself; an iconRef must name an icon (at PUT /api/assistant/settings and /api/settings/assistant).
  async validate(sql, value) {
    if (value.avatar !== null && /^(brand|set):/.test(value.avatar)) {
      await assertIconRef(sql, value.avatar, 'avatar');
    }
  },
});
