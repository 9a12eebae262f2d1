// The single path of every REST write of page, project, task, ref, resource and source_doc: who may write decides
// here, the registry does the write. Read-tier agents never write; suggest-tier agents are diverted (one spot,
// divertSuggestion); the owner and owner-tier agents apply directly, agents only inside their space scope.
import { httpErrors } from '@fastify/sensible';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import { spaceExists } from '../spaces/store.ts';
import type { Entity } from './handler.ts';
import { applyEntityWrite, type EntityWrite } from './registry.ts';

/** An agent's creates land in its own space unless the payload names one. */
export function withAgentSpace(write: EntityWrite, principal: Principal): EntityWrite {
  if (write.action === 'update' || write.action === 'delete') return write;
  if (principal.kind !== 'agent' || principal.spaceId === null) return write;
  const payload = write.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return write;
  if ('space_id' in payload && payload.space_id !== undefined) return write;
  return { ...write, payload: { ...payload, space_id: principal.spaceId } };
}

/** Suggest-tier writes: the place where they turn into pending changes. */
async function divertSuggestion(
  _request: FastifyRequest,
  _reply: FastifyReply,
  _write: EntityWrite,
): Promise<FastifyReply> {
  throw httpErrors.forbidden('suggest-tier writes become pending changes');
}

/**
 * Runs one entity write for the caller and sends 201 (created), 200 (changed) or 204 (deleted). `present` shapes
 * the entity for the caller (resources hide owner-only columns from agents).
 */
export async function performWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  write: EntityWrite,
  present: (entity: Entity, principal: Principal) => unknown = (entity) => entity,
): Promise<FastifyReply> {
  const principal = request.principal;
  if (!principal) throw httpErrors.unauthorized('authentication required');
  const prepared = withAgentSpace(write, principal);
  if (principal.kind === 'agent') {
    if (principal.tier === 'read') throw httpErrors.forbidden('read-tier agents cannot write');
    if (principal.tier === 'suggest') return divertSuggestion(request, reply, prepared);
  }
  const result = await applyEntityWrite(request.server.sql, prepared, { principal });
  if (write.action === 'delete') return reply.status(204).send(null);
  return reply.status(result.created ? 201 : 200).send(present(result.entity, principal));
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
  const principal = request.principal;
  if (principal?.kind !== 'agent' || principal.spaceId === null) return requested;
  if (requested !== undefined && requested !== principal.spaceId) {
    throw httpErrors.forbidden("space outside this agent's scope");
  }
  return principal.spaceId;
}

/** Refuses reading an entity outside the caller's scope. */
export function assertCanRead(request: FastifyRequest, spaceId: string | null): void {
  if (spaceId !== null && !agentCanReachSpace(request.principal, spaceId)) {
    throw httpErrors.forbidden("space outside this agent's scope");
  }
}

/** A space the caller may read and that exists (403 outside an agent's scope, 404 when missing). */
export async function assertSpaceReadable(request: FastifyRequest, spaceId: string): Promise<void> {
  assertCanRead(request, spaceId);
  if (!(await spaceExists(request.server.sql, spaceId))) throw httpErrors.notFound('space not found');
}
