// The single path of every entity write of page, project, task, ref, resource and source_doc, through REST or the
// tool protocol: who may write decides here, the registry does the write. Read-tier agents never write;
// suggest-tier agents' writes become pending changes; the owner and owner-tier agents apply directly (an agent's
// direct write is audited), agents only inside their space scope.
import { httpErrors } from '@fastify/sensible';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import type { Sql } from '../../plugins/db.ts';
import { applyDirect, proposeChange } from '../pending-changes/governance.ts';
import { spaceExists } from '../spaces/store.ts';
import type { Entity } from './handler.ts';
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

/** One entity write by a caller, whatever the channel (REST route, tool call). */
export async function writeAs(
  sql: Sql,
  principal: Principal,
  write: EntityWrite,
  spaceContext: string | null = null,
  config?: Config,
): Promise<WriteOutcome> {
  const prepared = withAgentSpace(write, principal, spaceContext);
  if (principal.kind === 'owner') {
    return { status: 'applied', result: await applyEntityWrite(sql, prepared, { principal, config }) };
  }
  if (principal.tier === 'read') throw httpErrors.forbidden('read-tier agents cannot write');
  if (principal.tier === 'suggest') {
    const change = await proposeChange(sql, principal, prepared, config);
    return { status: 'pending', pending_change_id: change.id };
  }
  return { status: 'applied', result: await applyDirect(sql, principal, prepared, config) };
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
  present: (entity: Entity, principal: Principal) => unknown = (entity) => entity,
): Promise<FastifyReply> {
  const principal = request.principal;
  if (!principal) throw httpErrors.unauthorized('authentication required');
  const outcome = await writeAs(request.server.sql, principal, write);
  if (outcome.status === 'pending') {
    return reply.status(202).send({ pending_change_id: outcome.pending_change_id, status: 'pending' });
  }
  if (write.action === 'delete') return reply.status(204).send(null);
  return reply.status(outcome.result.created ? 201 : 200).send(present(outcome.result.entity, principal));
}

/**
 * For writes that are not entity writes but act inside one space (linking a ref to a project): the owner, or an
 * owner-tier agent whose scope reaches the space.
 */
export function assertDirectWriter(request: FastifyRequest, spaceId: string): void {
  const principal = request.principal;
  if (principal?.kind === 'agent' && principal.tier !== 'owner') {
    throw httpErrors.forbidden(`${principal.tier}-tier agents cannot change links`);
  }
  if (!agentCanReachSpace(principal, spaceId)) throw httpErrors.forbidden("space outside this agent's scope");
}

/**
 * The space filter of a read: a scoped agent sees only its space (asking for another is a 403); everyone else
 * sees what they ask for (undefined: every space).
 */
export function readScope(request: FastifyRequest, requested: string | undefined): string | undefined {
  return readScopeOf(request.principal, requested);
}

/** readScope for a caller known by its principal (the tool protocol). */
export function readScopeOf(principal: Principal | null, requested: string | undefined): string | undefined {
  if (principal?.kind !== 'agent' || principal.spaceId === null) return requested;
  if (requested !== undefined && requested !== principal.spaceId) {
    throw httpErrors.forbidden("space outside this agent's scope");
  }
  return principal.spaceId;
}

/** Refuses reading an entity outside the caller's scope. */
export function assertCanRead(request: FastifyRequest, spaceId: string | null): void {
  assertPrincipalCanRead(request.principal, spaceId);
}

/** assertCanRead for a caller known by its principal (the tool protocol). */
export function assertPrincipalCanRead(principal: Principal | null, spaceId: string | null): void {
  if (spaceId !== null && !agentCanReachSpace(principal, spaceId)) {
    throw httpErrors.forbidden("space outside this agent's scope");
  }
}

/** A space the caller may read and that exists (403 outside an agent's scope, 404 when missing). */
export async function assertSpaceReadable(request: FastifyRequest, spaceId: string): Promise<void> {
  assertCanRead(request, spaceId);
  if (!(await spaceExists(request.server.sql, spaceId))) throw httpErrors.notFound('space not found');
}
