// What other domains use to write to the audit log: who acted, and one entry in the caller's transaction.
export { actorOf, insertAuditEntry as recordAudit } from './store.ts';
