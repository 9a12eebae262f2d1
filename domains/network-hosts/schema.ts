import { type Static, Type } from 'typebox';
import {
  NullableDateInput,
  NullableTimestamp,
  PageQuery,
  Paginated,
  Timestamp,
  Uuid,
} from '../../lib/schemas.ts';

export const NetworkHost = Type.Object(
  {
    id: Uuid,
    hostname: Type.String(),
    ip: Type.Union([Type.String(), Type.Null()]),
    role: Type.String(),
    os: Type.String(),
    notes: Type.String(),
    last_seen_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'NetworkHost' },
);

const hostname = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\\.?$',
});
const ip = Type.Union([Type.String({ format: 'ipv4' }), Type.String({ format: 'ipv6' }), Type.Null()]);
const short = Type.String({ maxLength: 200 });

export const CreateNetworkHost = Type.Object(
  {
    hostname,
    ip: Type.Optional(ip),
    role: Type.Optional(short),
    os: Type.Optional(short),
    notes: Type.Optional(Type.String({ maxLength: 100_000 })),
    last_seen_at: Type.Optional(NullableDateInput),
  },
  { additionalProperties: false },
);
export type CreateNetworkHost = Static<typeof CreateNetworkHost>;

export const UpdateNetworkHost = Type.Object(
  {
    hostname: Type.Optional(hostname),
    ip: Type.Optional(ip),
    role: Type.Optional(short),
    os: Type.Optional(short),
    notes: Type.Optional(Type.String({ maxLength: 100_000 })),
    last_seen_at: Type.Optional(NullableDateInput),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateNetworkHost = Static<typeof UpdateNetworkHost>;

export const NetworkHostList = Paginated(Type.Ref('NetworkHost'));
export const NetworkHostListQuery = Type.Intersect([PageQuery, Type.Object({ role: Type.Optional(short) })]);
