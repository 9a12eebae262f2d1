// The single path of every entity write of page, project, task, ref, resource and source_doc, through REST or the
// tool protocol: who may write decides here, the registry does the write. Read-tier agents never write;
// suggest-tier agents' writes become pending changes; the owner and owner-tier agents apply directly (an agent's
// direct write is audited), agents only inside their space scope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hubError } from '../../lib/errors.ts';
import { versionEtag } from '../../lib/etag.ts';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { applyDirect, proposeChange } from '../pending-changes/governance.ts';
import { spaceExists } from '../spaces/exists.ts';
import type { Entity, WriteEnv } from './handler.ts';
import { applyEntityWrite, type EntityWrite, type WriteResult } from './registry.ts';

/**
 * Creates land in a space unless the payload names one: the agent's own space, else the space the request acts
 * in (`spaceContext`, for example a conversation's space).
 */
export function withAgentSpace(
  write: EntityWrite,
  principal: Principal,
  spaceContext: string | null = null,
): EntityWrite {
  if (write.action === 'update' || write.action === 'delete') return write;
  const spaceId = principal.kind === 'agent' && principal.spaceId !== null ? principal.spaceId : spaceContext;
  if (spaceId === null) return write;
  const payload = write.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return write;
  if ('space_id' in payload && payload.space_id !== undefined) return write;
  return { ...write, payload: { ...payload, space_id: spaceId } };
}

/** What a write came to: applied, or waiting for the owner as a pending change. */
export type WriteOutcome =
  | { status: 'applied'; result: WriteResult }
  | { status: 'pending'; pending_change_id: string };

/** The write handlers of the modules (app.hub) and the service's configuration. */
export function writeEnv(app: FastifyInstance): WriteEnv {
  return { entities: app.hub.entities, config: app.config };
}

/** One entity write by a caller, whatever the channel (REST route, tool call). */
export async function writeAs(
  sql: Sql,
  env: WriteEnv,
  principal: Principal,
  write: EntityWrite,
  spaceContext: string | null = null,
): Promise<WriteOutcome> {
  const prepared = withAgentSpace(write, principal, spaceContext);
  if (principal.kind === 'owner') {
    return { status: 'applied', result: await applyEntityWrite(sql, prepared, { ...env, principal }) };
  }
  if (principal.tier === 'read') throw hubError('TIER_CANNOT_WRITE', principal.tier);
  if (principal.tier === 'suggest') {
    const change = await proposeChange(sql, principal, prepared, env);
    return { status: 'pending', pending_change_id: change.id };
  }
  return { status: 'applied', result: await applyDirect(sql, principal, prepared, env) };
}

/**
 * Runs one entity write for the caller and sends 201 (created), 200 (changed), 204 (deleted) or 202 with
 * `{ pending_change_id, status: 'pending' }` (a suggest-tier agent's write). `present` shapes the entity for the
 * caller (resources hide owner-only columns from agents).
 */
export async function performWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  write: EntityWrite,
  present: (entity: Entity, principal: Principal) => unknown | Promise<unknown> = (entity) => entity,
): Promise<FastifyReply> {
  const principal = request.principal;
  if (!principal) throw hubError('UNAUTHORIZED');
  const outcome = await writeAs(request.server.sql, writeEnv(request.server), principal, write);
  if (outcome.status === 'pending') {
    return reply.status(202).send({ pending_change_id: outcome.pending_change_id, status: 'pending' });
  }
  if (write.action === 'delete') return reply.status(204).send(null);
  if (outcome.result.version !== undefined) reply.header('etag', versionEtag(outcome.result.version));
  const shown = await present(outcome.result.entity, principal);
  return reply.status(outcome.result.created ? 201 : 200).send(shown);
}

/**
 * For writes that are not entity writes but act inside one space (linking a ref to a project): the owner, or an
 * owner-tier agent whose scope reaches the space.
 */
export function assertDirectWriter(request: FastifyRequest, spaceId: string): void {
  const principal = request.principal;
  if (principal?.kind === 'agent' && principal.tier !== 'owner') {
    throw hubError('TIER_CANNOT_LINK', principal.tier);
  }
  if (!agentCanReachSpace(principal, spaceId)) throw hubError('SPACE_NOT_FOUND');
}

/**
 * The space filter of a read: a scoped agent sees only its space (another is a 404, as if it did not exist); everyone else
 * sees what they ask for (undefined: every space).
 */
export function readScope(request: FastifyRequest, requested: string | undefined): string | undefined {
  return readScopeOf(request.principal, requested);
}

/** readScope for a caller known by its principal (the tool protocol). */
export function readScopeOf(principal: Principal | null, requested: string | undefined): string | undefined {
  if (principal?.kind !== 'agent' || principal.spaceId === null) return requested;
  if (requested !== undefined && requested !== principal.spaceId) throw hubError('SPACE_NOT_FOUND');
  return principal.spaceId;
}

/** A space the caller may read and that exists (404 when missing or outside an agent's scope). */
export async function assertSpaceReadableBy(
  sql: Db,
  principal: Principal | null,
  spaceId: string,
): Promise<void> {
  if (!agentCanReachSpace(principal, spaceId) || !(await spaceExists(sql, spaceId)))
    throw hubError('SPACE_NOT_FOUND');
}

/** assertSpaceReadableBy for a request's caller. */
export function assertSpaceReadable(request: FastifyRequest, spaceId: string): Promise<void> {
  return assertSpaceReadableBy(request.server.sql, request.principal, spaceId);
}
