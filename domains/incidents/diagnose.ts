import { HubError } from '../../lib/errors.ts';
import type { JobDeps } from '../../worker/contract.ts';
import { findAgent } from '../agents/turn-token.ts';
import { type HeadlessTurnResult, runHeadlessTurn } from '../assistant/headless.ts';
import { readSetting } from '../settings/registry.ts';
import { incidentView } from './incidents.ts';
import { diagnosisAgentSetting, diagnosisTier } from './setting.ts';

export const diagnosisPrompt =
  'An incident has just opened (the view above: the incident, its affected services, its events and its page). ' +
  'Diagnose it: read the timeline around its opening, the runbook pages its page links to and anything else you ' +
  'need, then write your diagnosis (the likely cause, the evidence, what to check or do next) into the incident’s ' +
  'page under a "Diagnosis" heading with update_page, keeping the rest of the page as it is. Propose an action only ' +
  'where one would fix the cause; do not change anything else.';

/** Runs the diagnosis turn; answers null when there is nothing to run (no agent, no runner, not suggest tier). */
export async function diagnoseIncident(
  deps: JobDeps,
  incidentId: string,
  log: (message: string) => void,
): Promise<HeadlessTurnResult | null> {
  const agentId = await readSetting(deps.sql, diagnosisAgentSetting);
  const agent = agentId ? await findAgent(deps.sql, agentId) : undefined;
  if (!agent) return null;
  if (agent.tier !== diagnosisTier) {
    log(
      `incident ${incidentId}: ${agent.name} is ${agent.tier} tier, not ${diagnosisTier}; no diagnosis asked`,
    );
    return null;
  }
  try {
    const result = await runHeadlessTurn(deps, {
      agent,
      prompt: diagnosisPrompt,
      view: await incidentView(deps.sql, incidentId),
      spaceId: null,
    });
    log(
      `incident ${incidentId}: diagnosis by ${agent.name}, ${result.drafts.length} drafts${result.error ? `, ${result.error}` : ''}`,
    );
    return result;
  } catch (error) {
    // No runner configured (or the agent disabled): the incident stands without a diagnosis.
    if (error instanceof HubError) {
      log(`incident ${incidentId}: no diagnosis (${error.message})`);
      return null;
    }
    throw error;
  }
}
