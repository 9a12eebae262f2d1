// Boards: named dashboards shown as tabs. The default board's layout is the dashboard layout; the layouts of every
// board are served by the dashboard domain (GET, PUT /api/boards/:id/layout), which keeps them.
//   GET    /api/boards      the boards in tab order (owner)
//   POST   /api/boards      add one, last unless a position is given (owner)
//   GET    /api/boards/:id  one board (owner)
//   PATCH  /api/boards/:id  rename or reorder (owner)
//   DELETE /api/boards/:id  delete a board and its layout; the default board is 409 (owner)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { boardLayoutKey } from './layout-key.ts';
import { Board, BoardList, CreateBoard, UpdateBoard } from './schema.ts';
import {
  boardIds,
  deleteBoard,
  findBoard,
  insertBoard,
  listBoards,
  lockBoards,
  renameBoard,
  renumberBoards,
} from './store.ts';

const tags = ['dashboard'];

async function existing(sql: Db, id: string): Promise<Board> {
  const board = await findBoard(sql, id);
  if (!board) throw hubError('BOARD_NOT_FOUND', id);
  return board;
}

/** Puts `id` at `position` (clamped to the end) among the others, then renumbers 0..n-1. */
async function place(tx: Db, id: string, position: number | undefined): Promise<void> {
  const others = await boardIds(tx, id);
  const at = Math.min(position ?? others.length, others.length);
  await renumberBoards(tx, [...others.slice(0, at), id, ...others.slice(at)]);
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Board);
  const ref = Type.Ref('Board');

  app.get(
    '/boards',
    {
      schema: {
        tags,
        summary: 'The boards, in tab order',
        response: { 200: BoardList, ...errors(401, 403) },
      },
    },
    async () => {
      const items = await listBoards(app.sql);
      return { items, total: items.length };
    },
  );

  app.post(
    '/boards',
    {
      schema: {
        tags,
        summary: 'Add a board (its layout starts empty)',
        body: CreateBoard,
        response: { 201: ref, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const board = await app.sql.begin(async (tx) => {
        await lockBoards(tx);
        const id = await insertBoard(tx, request.body.name.trim(), (await boardIds(tx)).length);
        await place(tx, id, request.body.position);
        return existing(tx, id);
      });
      return reply.status(201).send(board);
    },
  );

  app.get(
    '/boards/:id',
    {
      schema: {
        tags,
        summary: 'One board',
        params: IdParams,
        response: { 200: ref, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => existing(app.sql, request.params.id),
  );

  app.patch(
    '/boards/:id',
    {
      schema: {
        tags,
        summary: 'Rename or reorder a board',
        params: IdParams,
        body: UpdateBoard,
        response: { 200: ref, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      app.sql.begin(async (tx) => {
        await lockBoards(tx);
        const { id } = await existing(tx, request.params.id);
        await renameBoard(tx, id, request.body.name?.trim());
        if (request.body.position !== undefined) await place(tx, id, request.body.position);
        return existing(tx, id);
      }),
  );

  app.delete(
    '/boards/:id',
    {
      schema: {
        tags,
        summary: 'Delete a board and its layout (not the default board: 409)',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.sql.begin(async (tx) => {
        await lockBoards(tx);
        const board = await existing(tx, request.params.id);
        if (board.is_default) throw hubError('BOARD_IS_DEFAULT');
        await deleteBoard(tx, board.id, boardLayoutKey(board.id));
        await renumberBoards(tx, await boardIds(tx));
      });
      return reply.status(204).send(null);
    },
  );
};

export default { name: 'boards', routes: ownerOnly(plugin) } satisfies HubModule;
