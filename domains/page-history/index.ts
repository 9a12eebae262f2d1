// Page history: the versions a page's title and body have had, each with who made it, and restoring one (as a
// new version, audited). Owner only. Versions are written by a trigger on pages (sql/0026), so every path that
// writes a page keeps its history; purged by the page_history.purge task (jobs.ts).
//
// Routes it registers (access in brackets):
//   GET  /api/pages/:id/versions               [owner only]
//   GET  /api/pages/:id/versions/:n            [owner only]
//   POST /api/pages/:id/versions/:n/restore    [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { versionEtag } from '../../lib/etag.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import { unifiedDiff } from '../../lib/text-diff.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { actorOf, insertAuditEntry } from '../audit/trail.ts';
import { applyEntityWriteIn } from '../entities/registry.ts';
import { currentVersion } from '../entities/versions.ts';
import { writeEnv } from '../entities/write.ts';
import { pageHistoryCron, pageHistoryTasks } from './jobs.ts';
import { PageVersion, PageVersionList, PageVersionText, VersionListQuery, VersionParams } from './schema.ts';
import { pageHistorySetting } from './setting.ts';
import { currentText, findVersion, latestVersion, listVersions, markRestored } from './store.ts';

const tags = ['pages'];

/** A page as one text, so a diff shows a changed title too. */
function asText(page: { title: string; body: string }): string {
  return `# ${page.title}\n\n${page.body}`;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(PageVersion);

  async function existingPage(id: string) {
    const page = await currentText(app.sql, id);
    if (!page) throw hubError('PAGE_NOT_FOUND');
    return page;
  }

  app.get(
    '/pages/:id/versions',
    {
      schema: {
        tags,
        summary: "A page's versions, newest (the current text) first",
        params: IdParams,
        querystring: VersionListQuery,
        response: { 200: PageVersionList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await existingPage(request.params.id);
      const { limit, offset } = request.query;
      return { ...(await listVersions(app.sql, request.params.id, { limit, offset })), limit, offset };
    },
  );

  app.get(
    '/pages/:id/versions/:n',
    {
      schema: {
        tags,
        summary: 'One version of a page, with its text and a diff to the current text',
        params: VersionParams,
        response: { 200: PageVersionText, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { id, n } = request.params;
      const page = await existingPage(id);
      const version = await findVersion(app.sql, id, n);
      if (!version) throw hubError('PAGE_VERSION_NOT_FOUND', `${n} of page ${id}`);
      return { ...version, diff: unifiedDiff(asText(version), asText(page), `version ${n}`, 'current') };
    },
  );

  app.post(
    '/pages/:id/versions/:n/restore',
    {
      schema: {
        tags,
        summary: 'Restore a version: the page takes its title and body again, as a new version',
        description:
          'The restore is a new version (restored_from: n) written as an owner edit, and is in the audit log. ' +
          'Restoring the text the page already has changes nothing and answers the current version.',
        params: VersionParams,
        response: { 200: Type.Ref('PageVersion'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { id, n } = request.params;
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      const restored = await app.sql.begin(async (tx) => {
        const version = await findVersion(tx, id, n);
        if (!version) throw hubError('PAGE_VERSION_NOT_FOUND', `${n} of page ${id}`);
        const before = await latestVersion(tx, id);
        const write = {
          entity_type: 'page' as const,
          action: 'update' as const,
          entity_id: id,
          payload: { title: version.title, body: version.body },
        };
        await applyEntityWriteIn(tx, write, { ...writeEnv(app), principal });
        const after = await latestVersion(tx, id);
        if (after > before) await markRestored(tx, id, after, n);
        await insertAuditEntry(tx, {
          actor: actorOf(principal),
          action: 'restore_version',
          pending_change_id: null,
          entity_type: 'page',
          entity_id: id,
          outcome: 'applied',
          detail: { restored_from: n, version: after },
        });
        return findVersion(tx, id, after);
      });
      if (!restored) throw hubError('PAGE_NOT_FOUND');
      const version = await currentVersion(app.sql, 'page', id);
      if (version !== undefined) reply.header('etag', versionEtag(version));
      return restored;
    },
  );
};

export default {
  name: 'page-history',
  routes: ownerOnly(plugin),
  tasks: pageHistoryTasks,
  cron: pageHistoryCron,
  settings: [pageHistorySetting],
} satisfies HubModule;
