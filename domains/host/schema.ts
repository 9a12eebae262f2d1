// The host card's query.
import { Type } from 'typebox';

export const HostQuery = Type.Object({
  mounts: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Comma-separated subset of HOST_MOUNTS' }),
  ),
});
