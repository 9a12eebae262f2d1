// Alert rules as the owner edits them: the targets a rule names must exist (the environment's only while ALERT_URL
// is set) and quiet hours need a real time zone.
import type { Config } from '../../config/index.ts';
import type { Db } from '../../lib/db.ts';
import { hubError } from '../../lib/errors.ts';
import type { CreateRule, UpdateRule } from './schema.ts';
import {
  absentTargets,
  deleteRuleRow,
  findRuleRow,
  insertRuleRow,
  listRuleRows,
  type RuleRow,
  updateRuleRow,
} from './store.ts';
import { environmentTargetId } from './targets.ts';

export interface RuleDeps {
  sql: Db;
  config: Pick<Config, 'alerts'>;
}

async function checkRule(deps: RuleDeps, rule: UpdateRule): Promise<void> {
  const named = (rule.targets ?? []).filter((id) => id !== environmentTargetId || !deps.config.alerts.url);
  const absent = await absentTargets(deps.sql, named);
  if (absent.length > 0) throw hubError('ALERT_TARGET_NOT_FOUND', absent.join(', '));
  const timezone = rule.quiet_hours?.timezone;
  if (timezone && timezone !== 'UTC' && !Intl.supportedValuesOf('timeZone').includes(timezone)) {
    throw hubError(
      'VALIDATION_FAILED',
      'quiet_hours.timezone must be an IANA time zone such as Europe/Berlin',
    );
  }
}

export function listRules(deps: RuleDeps): Promise<RuleRow[]> {
  return listRuleRows(deps.sql);
}

export async function getRule(deps: RuleDeps, id: string): Promise<RuleRow> {
  const rule = await findRuleRow(deps.sql, id);
  if (!rule) throw hubError('ALERT_RULE_NOT_FOUND', id);
  return rule;
}

export async function createRule(deps: RuleDeps, body: CreateRule): Promise<RuleRow> {
  await checkRule(deps, body);
  return insertRuleRow(deps.sql, body);
}

export async function updateRule(deps: RuleDeps, id: string, change: UpdateRule): Promise<RuleRow> {
  await checkRule(deps, change);
  const rule = await updateRuleRow(deps.sql, id, change);
  if (!rule) throw hubError('ALERT_RULE_NOT_FOUND', id);
  return rule;
}

export async function deleteRule(deps: RuleDeps, id: string): Promise<void> {
  if (!(await deleteRuleRow(deps.sql, id))) throw hubError('ALERT_RULE_NOT_FOUND', id);
}
