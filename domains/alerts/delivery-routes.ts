// The deliveries' route (owner): what was sent where and what each target answered.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.ts';
import { DeliveryList, DeliveryQuery } from './schema.ts';
import { listDeliveries } from './store.ts';

export const deliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/alerts/deliveries',
    {
      schema: {
        tags: ['alerts'],
        summary: 'What was sent where and what each target answered, newest first',
        querystring: DeliveryQuery,
        response: { 200: DeliveryList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      return { ...(await listDeliveries(app.sql, request.query)), limit, offset };
    },
  );
};
