// Maintenance windows: planned stretches (one-off or recurring by an RFC 5545 RRULE) during which the services they
// cover raise no alerts and their downtime does not count against uptime. The owner's alone.
//   GET    /api/maintenance        every window, with the occurrence on now and the next one
//   POST   /api/maintenance        add (201)
//   GET    /api/maintenance/:id
//   PATCH  /api/maintenance/:id    change some fields
//   DELETE /api/maintenance/:id
// windows.ts answers the health checks (who is in maintenance now) and the status pages (what to announce).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule, ModuleOptions } from '../../module.ts';
import type { Db } from '../../plugins/db.ts';
import { maintenanceCron, maintenanceTasks } from './jobs.ts';
import { CreateMaintenance, MaintenanceList, MaintenanceWindow, UpdateMaintenance } from './schema.ts';
import {
  deleteWindow,
  findWindow,
  insertWindow,
  listWindows,
  lockWindow,
  unknownIds,
  updateWindow,
  type WindowRow,
  type WindowValues,
} from './store.ts';
import { presentWindow, recurrence } from './windows.ts';

const tags = ['maintenance'];

/** A window's fields checked together: one-off (ends_at after starts_at) or recurring (rrule and duration). */
async function checked(sql: Db, window: CreateMaintenance): Promise<WindowValues> {
  const startsAt = new Date(window.starts_at);
  const endsAt = window.ends_at ? new Date(window.ends_at) : null;
  const rule = window.rrule ?? null;
  const duration = window.duration_minutes ?? null;
  if (rule !== null) {
    if (endsAt)
      throw hubError(
        'INVALID_MAINTENANCE',
        'ends_at is for a one-off window: a recurring one (rrule) lasts its own length',
      );
    if (duration === null) throw hubError('INVALID_MAINTENANCE', 'a recurring window needs duration_minutes');
    recurrence(rule, startsAt);
  } else {
    if (!endsAt)
      throw hubError('INVALID_MAINTENANCE', 'a window needs ends_at, or an rrule with duration_minutes');
    if (duration !== null) throw hubError('INVALID_MAINTENANCE', 'duration_minutes is for recurring windows');
    if (endsAt <= startsAt) throw hubError('INVALID_MAINTENANCE', 'ends_at must be after starts_at');
  }
  const serviceIds = window.service_ids ?? [];
  const resourceIds = window.resource_ids ?? [];
  const missingServices = await unknownIds(sql, 'monitored_services', serviceIds);
  if (missingServices.length) throw hubError('SERVICE_NOT_FOUND', missingServices.join(', '));
  const missingResources = await unknownIds(sql, 'resources', resourceIds);
  if (missingResources.length) throw hubError('RESOURCE_NOT_FOUND', missingResources.join(', '));
  return {
    title: window.title,
    starts_at: startsAt,
    ends_at: endsAt,
    rrule: rule,
    duration_minutes: duration,
    service_ids: serviceIds,
    resource_ids: resourceIds,
    notify_start_end: window.notify_start_end ?? false,
  };
}

/** A stored window as the fields a write sends, so a PATCH is checked as the whole it makes. */
function fieldsOf(row: WindowRow): CreateMaintenance {
  return {
    title: row.title,
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at?.toISOString() ?? null,
    rrule: row.rrule,
    duration_minutes: row.duration_minutes,
    service_ids: row.service_ids,
    resource_ids: row.resource_ids,
    notify_start_end: row.notify_start_end,
  };
}

const plugin: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  app.addSchema(MaintenanceWindow);
  const show = (row: WindowRow) => presentWindow(row, options.now());

  app.get(
    '/maintenance',
    {
      schema: {
        tags,
        summary: 'Maintenance windows, with the occurrence on now and the next one',
        response: { 200: MaintenanceList, ...errors(401, 403) },
      },
    },
    async () => {
      const rows = await listWindows(app.sql);
      return { items: rows.map(show), total: rows.length };
    },
  );

  app.post(
    '/maintenance',
    {
      schema: {
        tags,
        summary: 'Add a maintenance window',
        description:
          'One-off: starts_at and ends_at. Recurring: starts_at (the first occurrence), an RFC 5545 rrule and ' +
          'duration_minutes. The services covered are service_ids and those running on resource_ids; during an ' +
          'occurrence their state changes are recorded but raise no alert, and their checks do not count against ' +
          'uptime. notify_start_end raises maintenance.started and maintenance.ended.',
        body: CreateMaintenance,
        response: { 201: Type.Ref('MaintenanceWindow'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const values = await checked(app.sql, request.body);
      return reply.status(201).send(show(await insertWindow(app.sql, values)));
    },
  );

  app.get(
    '/maintenance/:id',
    {
      schema: {
        tags,
        summary: 'Get a maintenance window',
        params: IdParams,
        response: { 200: Type.Ref('MaintenanceWindow'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const row = await findWindow(app.sql, request.params.id);
      if (!row) throw hubError('MAINTENANCE_NOT_FOUND', request.params.id);
      return show(row);
    },
  );

  app.patch(
    '/maintenance/:id',
    {
      schema: {
        tags,
        summary: 'Change some fields of a maintenance window',
        description: 'Turning a one-off window recurring sends rrule and duration_minutes with ends_at null.',
        params: IdParams,
        body: UpdateMaintenance,
        response: { 200: Type.Ref('MaintenanceWindow'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const row = await app.sql.begin(async (tx) => {
        const current = await lockWindow(tx, request.params.id);
        if (!current) throw hubError('MAINTENANCE_NOT_FOUND', request.params.id);
        return updateWindow(tx, current.id, await checked(tx, { ...fieldsOf(current), ...request.body }));
      });
      return show(row);
    },
  );

  app.delete(
    '/maintenance/:id',
    {
      schema: {
        tags,
        summary: 'Remove a maintenance window',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteWindow(app.sql, request.params.id))) {
        throw hubError('MAINTENANCE_NOT_FOUND', request.params.id);
      }
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'maintenance',
  routes: plugin,
  tasks: maintenanceTasks,
  cron: maintenanceCron,
} satisfies HubModule;
