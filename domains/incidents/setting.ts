// The infrastructure agent asked to diagnose each incident the hub opens (null: none is asked). It must be a
// suggest-tier agent, so whatever it writes (its diagnosis on the incident's page, an action it proposes) waits for
// the owner's approval; the diagnosis job checks the tier again, since an agent's tier can change after the setting.
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { defineSetting } from '../../lib/settings.ts';
import { findAgent } from '../agents/turn-token.ts';

export const diagnosisTier = 'suggest';

export const diagnosisAgentSetting = defineSetting({
  key: 'incidents.diagnosis_agent',
  schema: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  defaultValue: null,
  description:
    'The id of the suggest-tier agent asked for a diagnosis of each new incident (null: none); its writes are drafts',
  validate: async (sql, value) => {
    if (value === null) return;
    const agent = await findAgent(sql, value);
    if (!agent) throw hubError('AGENT_NOT_FOUND', value);
    if (agent.tier !== diagnosisTier)
      throw hubError(
        'SETTING_INVALID',
        `setting "incidents.diagnosis_agent": ${agent.name} is ${agent.tier} tier; the diagnosing agent must be ` +
          `${diagnosisTier} tier so its writes wait for approval`,
      );
  },
});
