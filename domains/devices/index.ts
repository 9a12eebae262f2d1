// The LAN device inventory. Reads are for agents and the owner; every write is the owner's (401 without credentials).
//   GET    /api/devices                    the band list (new, known, ignored), filters status, present, q
//   GET    /api/devices/discovered         the devices waiting for review (status new)
//   GET    /api/devices/:mac
//   POST   /api/devices                    manual add: known, not present until a scan sees it
//   POST   /api/devices/scan               enqueues devices.scan (202)
//   PATCH  /api/devices/discovered/:mac    review: accept (known) or ignore, with optional name, icon, type, location
//   PATCH  /api/devices/:mac               owner edits (recorded as owner-set: scans never overwrite them)
//   DELETE /api/devices/:mac
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { assertIconRef } from '../icons/icon-ref.ts';
import { devicesCron, devicesTasks } from './jobs.ts';
import { deviceList, presentDevice } from './list.ts';
import { isLocallyAdministered, normaliseMac, vendorOf } from './mac.ts';
import {
  CreateDevice,
  Device,
  DeviceList,
  DeviceListQuery,
  devicesScanTask,
  MacParams,
  ReviewDevice,
  ScanAccepted,
  UpdateDevice,
} from './schema.ts';
import { deleteDevice, findDevice, insertDevice, updateDevice } from './store.ts';
import { deviceTools } from './tools.ts';

const tags = ['devices'];

function macOf(value: string, field = 'mac'): string {
  const mac = normaliseMac(value);
  if (!mac) throw hubError('INVALID_MAC', field, value);
  return mac;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Device);

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/devices',
        {
          schema: {
            tags,
            summary: 'The device band list',
            description:
              'New devices first, then known, then ignored; within a band by name (or host name), then IP. ' +
              '`q` matches name, host name, IP, MAC and vendor, case-insensitively.',
            querystring: DeviceListQuery,
            response: { 200: DeviceList, ...errors(400, 401, 403) },
          },
        },
        async (request) => deviceList(app.sql, request.query),
      );

      agents.get(
        '/devices/discovered',
        {
          schema: {
            tags,
            summary: 'Devices a scan found that are not reviewed yet',
            querystring: DeviceListQuery,
            response: { 200: DeviceList, ...errors(400, 401, 403) },
          },
        },
        async (request) => deviceList(app.sql, { ...request.query, status: 'new' }),
      );

      agents.get(
        '/devices/:mac',
        {
          schema: {
            tags,
            summary: 'Get a device',
            params: MacParams,
            response: { 200: Device, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          const mac = macOf(request.params.mac);
          const row = await findDevice(app.sql, mac);
          if (!row) throw hubError('DEVICE_NOT_FOUND', mac);
          return presentDevice(row);
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/devices',
        {
          schema: {
            tags,
            summary: 'Add a device by hand',
            description: 'Created as known and not present; the next scan that sees it fills in the rest.',
            body: CreateDevice,
            response: { 201: Device, ...errors(400, 401, 403, 409) },
          },
        },
        async (request, reply) => {
          const mac = macOf(request.body.mac);
          const random = isLocallyAdministered(mac);
          const row = await insertDevice(app.sql, {
            mac,
            ip: request.body.ip ?? null,
            name: request.body.name ?? null,
            vendor: random ? null : await vendorOf(mac),
            random_mac: random,
            owner_fields: (['ip', 'name'] as const).filter((field) => request.body[field] !== undefined),
          });
          if (!row) throw hubError('DEVICE_EXISTS', mac);
          return reply.status(201).send(presentDevice(row));
        },
      );

      owner.post(
        '/devices/scan',
        {
          schema: {
            tags,
            summary: 'Scan the LAN for devices now',
            description: 'Enqueues devices.scan; follow it at /api/jobs/:id.',
            response: { 202: ScanAccepted, ...errors(401, 403) },
          },
        },
        async (_request, reply) => {
          const job = await enqueue(app.sql, devicesScanTask, {}, { jobKey: 'devices.scan' });
          return reply.status(202).send({ job_id: job.id, task: 'devices.scan' as const });
        },
      );

      owner.patch(
        '/devices/discovered/:mac',
        {
          schema: {
            tags,
            summary: 'Review a discovered device: accept it as known or ignore it',
            params: MacParams,
            body: ReviewDevice,
            response: { 200: Device, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          const mac = macOf(request.params.mac);
          const { action, ...fields } = request.body;
          await assertIconRef(app.sql, fields.icon);
          const row = await app.sql.begin(async (tx) => {
            const current = await findDevice(tx, mac);
            if (!current) throw hubError('DEVICE_NOT_FOUND', mac);
            if (current.status !== 'new') throw hubError('DEVICE_NOT_NEW', mac);
            return updateDevice(tx, mac, { ...fields, status: action === 'accept' ? 'known' : 'ignored' });
          });
          if (!row) throw hubError('DEVICE_NOT_FOUND', mac);
          return presentDevice(row);
        },
      );

      owner.patch(
        '/devices/:mac',
        {
          schema: {
            tags,
            summary: 'Edit a device',
            description:
              'name, icon (iconRef or null), notes, type, location and ip become owner-set: scans leave them alone.',
            params: MacParams,
            body: UpdateDevice,
            response: { 200: Device, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          const mac = macOf(request.params.mac);
          await assertIconRef(app.sql, request.body.icon);
          const row = await updateDevice(app.sql, mac, request.body);
          if (!row) throw hubError('DEVICE_NOT_FOUND', mac);
          return presentDevice(row);
        },
      );

      owner.delete(
        '/devices/:mac',
        {
          schema: {
            tags,
            summary: 'Forget a device (a later scan that sees it adds it again as new)',
            params: MacParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          const mac = macOf(request.params.mac);
          if (!(await deleteDevice(app.sql, mac))) throw hubError('DEVICE_NOT_FOUND', mac);
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'devices',
  routes: plugin,
  tasks: devicesTasks,
  cron: devicesCron,
  tools: deviceTools,
  actions: [{ task: devicesScanTask }],
} satisfies HubModule;
