// The browser session routes' schemas.
import { Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';

export const BrowserSession = Type.Object(
  {
    id: Uuid,
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.String({ format: 'date-time', description: 'recorded at most once a minute' }),
    expires_at: Type.String({ format: 'date-time' }),
    address: Type.Union([Type.String(), Type.Null()], { description: 'the client address it was made from' }),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    current: Type.Boolean({ description: 'the session of this request' }),
  },
  { $id: 'BrowserSession' },
);

export const SessionList = Type.Object({
  items: Type.Array(Type.Ref('BrowserSession')),
  total: Type.Integer(),
});

export const SessionState = Type.Object(
  {
    signed_in: Type.Boolean(),
    via: Type.Union([Type.Literal('session'), Type.Literal('bearer'), Type.Literal('access'), Type.Null()]),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'SessionState' },
);
