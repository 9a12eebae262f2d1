// App writes for the entity registry, so an agent's app write waits for approval like its other writes. Apps belong
// to no space: an agent scoped to one space may read them but not change them. A group's positions stay contiguous.

import { hubError } from '../../lib/errors.ts';
import { normaliseTags } from '../../lib/tags.ts';
import type { Db } from '../../plugins/db.ts';
import { normaliseMac } from '../devices/mac.ts';
import type { EntityHandler, WriteContext } from '../entities/handler.ts';
import { validator } from '../entities/handler.ts';
import { assertIconRef } from '../icons/icon-ref.ts';
import { CreateApp, UpdateApp } from './schema.ts';
import {
  type AppFields,
  type AppRow,
  deleteApp,
  deviceExists,
  findApp,
  groupIds,
  insertApp,
  lockApp,
  lockGroup,
  renumber,
  serviceExists,
  updateApp,
} from './store.ts';

const checkCreate = validator(CreateApp, 'app');
const checkUpdate = validator(UpdateApp, 'app patch');
export const defaultGroup = 'Apps';

function assertUnscoped(ctx: WriteContext): void {
  if (ctx.principal.kind === 'agent' && ctx.principal.spaceId !== null) throw hubError('APP_OUT_OF_SCOPE');
}

/** What the links and the icon of a write name must exist; the MAC is stored normalised. */
async function checkLinks(
  tx: Db,
  input: { icon?: string | null; service_id?: string | null; device_mac?: string | null },
): Promise<{ device_mac?: string | null }> {
  if (input.icon !== undefined) await assertIconRef(tx, input.icon);
  if (input.service_id && !(await serviceExists(tx, input.service_id)))
    throw hubError('SERVICE_NOT_FOUND', input.service_id);
  if (input.device_mac === undefined || input.device_mac === null) return { device_mac: input.device_mac };
  const mac = normaliseMac(input.device_mac);
  if (mac === null) throw hubError('INVALID_MAC', 'device_mac', input.device_mac);
  if (!(await deviceExists(tx, mac))) throw hubError('DEVICE_NOT_FOUND', mac);
  return { device_mac: mac };
}

/** Puts `id` at `position` (clamped to the end) among the others of its group, then renumbers 0..n-1. */
async function place(tx: Db, others: string[], id: string, position: number | undefined): Promise<void> {
  const at = Math.min(position ?? others.length, others.length);
  await renumber(tx, [...others.slice(0, at), id, ...others.slice(at)]);
}

async function reload(tx: Db, id: string): Promise<AppRow> {
  const app = await findApp(tx, id);
  if (!app) throw hubError('APP_NOT_FOUND', id);
  return app;
}

/** Locks two groups in a fixed order, so two moves between the same groups cannot deadlock. */
async function lockGroups(tx: Db, ...groups: string[]): Promise<void> {
  for (const group of [...new Set(groups)].sort()) await lockGroup(tx, group);
}

export const appHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    assertUnscoped(ctx);
    const input = checkCreate(payload);
    const links = await checkLinks(tx, input);
    const fields: AppFields = {
      name: input.name.trim(),
      href: input.href,
      description: input.description ?? '',
      icon: input.icon ?? null,
      group: (input.group ?? defaultGroup).trim(),
      service_id: input.service_id ?? null,
      device_mac: links.device_mac ?? null,
      tags: normaliseTags(input.tags ?? []),
    };
    await lockGroup(tx, fields.group);
    const others = await groupIds(tx, fields.group);
    // Inserted past the end, then placed: the deferred (group, position) constraint is checked at commit.
    const id = await insertApp(tx, fields, others.length);
    await place(tx, others, id, input.position);
    return reload(tx, id);
  },

  async update(tx, id, patch, ctx) {
    assertUnscoped(ctx);
    const input = checkUpdate(patch);
    const current = await findApp(tx, id);
    if (!current) throw hubError('APP_NOT_FOUND', id);
    const group = input.group?.trim() ?? current.group;
    await lockGroups(tx, current.group, group);
    // Locked after the group locks, so a concurrent move of this app has finished.
    const locked = await lockApp(tx, id);
    if (!locked) throw hubError('APP_NOT_FOUND', id);
    const links = await checkLinks(tx, input);
    await updateApp(tx, id, {
      name: input.name?.trim(),
      href: input.href,
      description: input.description,
      icon: input.icon,
      group,
      service_id: input.service_id,
      device_mac: links.device_mac,
      tags: input.tags === undefined ? undefined : normaliseTags(input.tags),
    });
    const moved = group !== locked.group;
    if (moved) await renumber(tx, await groupIds(tx, locked.group, id));
    if (moved || input.position !== undefined) {
      await place(tx, await groupIds(tx, group, id), id, input.position);
    }
    return reload(tx, id);
  },

  async delete(tx, id, ctx) {
    assertUnscoped(ctx);
    const current = await findApp(tx, id);
    if (!current) throw hubError('APP_NOT_FOUND', id);
    await lockGroup(tx, current.group);
    const locked = await lockApp(tx, id);
    if (!locked) throw hubError('APP_NOT_FOUND', id);
    await deleteApp(tx, id);
    await renumber(tx, await groupIds(tx, locked.group));
    return current;
  },
};
