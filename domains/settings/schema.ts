// The settings routes' schemas: a key and its stored value.
import { Type } from 'typebox';
import { Timestamp } from '../../lib/schemas.ts';

export const Key = Type.String({ pattern: '^[a-z][a-z0-9_.-]{0,99}$' });

export const Setting = Type.Object(
  { key: Key, value: Type.Unknown(), updated_at: Timestamp },
  { $id: 'Setting' },
);

export const KeyValue = Type.Object({ key: Key, value: Type.Unknown() });
