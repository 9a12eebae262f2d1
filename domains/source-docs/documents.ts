// Source documents as other domains write them: a capture's job stores what it fetched, an upload what it read.
// The SQL stays in store.ts.
export { insertSourceDoc, type SourceDocRow, upsertSourceDocByUrl } from './store.ts';
