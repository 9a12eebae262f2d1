// TypeBox's compiler and value functions, loaded on their first use: about 280 modules (a fifth of a second of a
// start, and their code in the heap) that checking an agent's or an upstream's payload needs and a start does not
// (route schemas are checked by Ajv). The checks are synchronous, so the modules are loaded with require(), which
// loads an ES module synchronously (the same instance `import` would give: one TypeBox, one format registry).
import type { TSchema } from 'typebox';
import type * as TypeboxCompile from 'typebox/compile';
import type * as TypeboxValue from 'typebox/value';
import { lazyRequire, onFirstUse } from './lazy.ts';

const compileModule = lazyRequire<typeof TypeboxCompile>('typebox/compile');
const valueModule = lazyRequire<typeof TypeboxValue>('typebox/value');

// Each stands for TypeBox's function of the same name, overloads and type guards included (hence the casts).
type Variadic = (...args: unknown[]) => unknown;
export const Compile = ((...args: unknown[]) =>
  (compileModule().Compile as Variadic)(...args)) as typeof TypeboxCompile.Compile;
export const Check = ((...args: unknown[]) =>
  (valueModule().Check as Variadic)(...args)) as typeof TypeboxValue.Check;
export const Errors = ((...args: unknown[]) =>
  (valueModule().Errors as Variadic)(...args)) as typeof TypeboxValue.Errors;
export const Default = ((...args: unknown[]) =>
  (valueModule().Default as Variadic)(...args)) as typeof TypeboxValue.Default;
export const Clone = ((...args: unknown[]) =>
  (valueModule().Clone as Variadic)(...args)) as typeof TypeboxValue.Clone;

/** What Compile(type) returns: TypeBox's validator of `Type`. */
type Compiled<Type extends TSchema> = ReturnType<typeof TypeboxCompile.Compile<Type>>;

/** Compile(type) on the returned function's first call: a module declares its checkers at load, compiled on use. */
export function compiledOnUse<const Type extends TSchema>(type: Type): () => Compiled<Type> {
  return onFirstUse(() => Compile(type));
}
