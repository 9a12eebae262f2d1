// What other domains write to the audit trail: who acted, and one entry per decision (approvals, rejections, an
// agent's direct writes). The SQL stays in store.ts.
export { actorOf, insertAuditEntry, type NewAuditEntry } from './store.ts';
