// TypeBox's compiler and value functions, for the payloads checked outside routes (jobs, settings, layouts, agents'
// tool calls, webhooks; route schemas are checked by Ajv). They were once loaded on first use, to spare a start about
// 280 modules; the bundle npm start runs now carries all of TypeBox in one chunk (scripts/build-server.ts), where
// they cost a few hundred kilobytes of text and no module records, and one instance holds the format registry
// (lib/schemas.ts) the compiler reads.
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { onFirstUse } from './lazy.ts';

export { Compile } from 'typebox/compile';
export { Check, Clone, Default, Errors } from 'typebox/value';

/** What Compile(type) returns: TypeBox's validator of `Type`. */
type Compiled<Type extends TSchema> = ReturnType<typeof Compile<Type>>;

/** Compile(type) on the returned function's first call: a module declares its checkers at load, compiled on use. */
export function compiledOnUse<const Type extends TSchema>(type: Type): () => Compiled<Type> {
  return onFirstUse(() => Compile(type));
}
