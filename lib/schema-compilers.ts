// Fastify compiles every route's request and response schemas when an app is built: with ~400 routes that was most
// of the build (about 0.8 s of 1.4 s) and ~15 MB of a started hub's heap, for routes most hubs call a few of. Here
// each route gets a function that compiles its schema on its first call instead, and the compiled function is kept
// for the process, so an app built again in the same process (the tests build hundreds) reuses what was compiled
// before. Every route's schemas are still compiled by the tests (test/lib/schema-compilers.test.ts compiles all of
// them), so a schema Ajv or fast-json-stringify refuses fails there rather than on an owner's first request.
import { AjvCompiler } from '@fastify/ajv-compiler';
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Validator = ReturnType<ReturnType<ValidatorFactory>>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * JSON of an object, kept by the object: Fastify asks for a compiler once per plugin context (~200 an app), each time
 * with a new record of the same shared schema objects and the same options object.
 */
const jsonByObject = new WeakMap<object, string>();
function jsonOf(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? {});
  let json = jsonByObject.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    jsonByObject.set(value, json);
  }
  return json;
}

/** Compiled functions by schema object, per set of shared schemas and options. */
function compiledBySchema<T>() {
  const sets = new Map<string, WeakMap<object, T>>();
  return (externalSchemas: unknown, options: unknown): WeakMap<object, T> => {
    const shared = Object.entries(externalSchemas ?? {}).map(
      ([id, schema]) => `${JSON.stringify(id)}:${jsonOf(schema)}`,
    );
    const key = `{${shared.join(',')}}${jsonOf(options)}`;
    let compiled = sets.get(key);
    if (!compiled) {
      compiled = new WeakMap();
      sets.set(key, compiled);
    }
    return compiled;
  };
}

/** Calls `compile` once, on first use, and keeps its answer in `cache` under `schema`. */
function once<T>(cache: WeakMap<object, T>, schema: object, compile: () => T): () => T {
  return () => {
    let compiled = cache.get(schema);
    if (!compiled) {
      compiled = compile();
      cache.set(schema, compiled);
    }
    return compiled;
  };
}

const ajvPool = AjvCompiler();
const validatorSets = compiledBySchema<Validator>();
const serializerFactory = SerializerSelector();
const serializerSets = compiledBySchema<Serializer>();

/** When a route's schemas are compiled: on the route's first use (the service), or as the app is built (a test). */
export type SchemaCompileTime = 'first-use' | 'build';

/** The compiler factories for Fastify's schema controller (`schemaController.compilersFactory`). */
export function schemaCompilers(at: SchemaCompileTime = 'first-use'): {
  buildValidator: ValidatorFactory;
  buildSerializer: SerializerFactory;
} {
  /**
   * Validators: Fastify calls the function and, when it answers false, reads its `errors` (Ajv's convention), so the
   * stand-in copies the compiled validator's errors onto itself after each call.
   */
  const buildValidator: ValidatorFactory = (externalSchemas, options) => {
    const cache = validatorSets(externalSchemas, options);
    let build: ReturnType<ValidatorFactory> | undefined;
    return (route) => {
      const compiled = once(cache, route.schema as object, () => {
        build ??= ajvPool(externalSchemas, options);
        return build(route);
      });
      if (at === 'build') return compiled();
      const validate = ((data: unknown) => {
        const validator = compiled();
        const valid = validator(data);
        validate.errors = validator.errors;
        return valid;
      }) as Validator;
      return validate;
    };
  };

  /** Serializers: fast-json-stringify keeps nothing, so each compiled function is kept by its schema object. */
  const buildSerializer: SerializerFactory = (externalSchemas, options) => {
    const cache = serializerSets(externalSchemas, options);
    return (route) => {
      // A factory per schema: compiling a schema that is itself a shared one (its `$id` among them) drops that shared
      // schema from the factory's options for every later compile, so a route referring to it compiled after one
      // returning it would not find it. Compiled in route order at build that never showed; at first use it does.
      const compiled = once(cache, route.schema as object, () =>
        serializerFactory(externalSchemas, options)(route),
      );
      if (at === 'build') return compiled();
      return (data) => compiled()(data);
    };
  };
  return { buildValidator, buildSerializer };
}
