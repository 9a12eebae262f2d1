// An incident's diagnosis: when an infrastructure agent is configured (incidents.diagnosis_agent) the opening of an
// incident enqueues incidents.diagnose, a headless assistant turn of that agent with the incident and its page as its
// view. The agent is suggest tier (checked here again, at the time of the turn), so its edit of the page arrives as a
// pending change and any action it proposes as a pending action: nothing it does bypasses approval. Without a runner
// the job does nothing.
import type { Db } from '../../lib/db.ts';
import { HubError } from '../../lib/errors.ts';
import type { JobDeps } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { findAgent } from '../agents/turn-token.ts';
import { type HeadlessTurnResult, runHeadlessTurn } from '../assistant/headless.ts';
import { readSetting } from '../settings/registry.ts';
import { incidentView } from './incidents.ts';
import { incidentsDiagnoseTask } from './schema.ts';
import { diagnosisAgentSetting, diagnosisTier } from './setting.ts';

export const diagnosisPrompt =
  'An incident has just opened (the view above: the incident, its affected services, its events and its page). ' +
  'Diagnose it: read the timeline around its opening, the runbook pages its page links to and anything else you ' +
  'need, then write your diagnosis (the likely cause, the evidence, what to check or do next) into the incident’s ' +
  'page under a "Diagnosis" heading with update_page, keeping the rest of the page as it is. Propose an action only ' +
  'where one would fix the cause; do not change anything else.';

/** In the transaction that opens an incident: its diagnosis is asked for when an agent is configured. */
export async function requestDiagnosis(tx: Db, incidentId: string): Promise<void> {
  if ((await readSetting(tx, diagnosisAgentSetting)) === null) return;
  await enqueue(tx, incidentsDiagnoseTask, { incident_id: incidentId });
}

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
