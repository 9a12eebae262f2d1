// Fastify compiles every route's request and response schemas when an app is built: with ~400 routes that is most
// of the build (about 0.8 s of 1.4 s). These compiler factories live for the process, so an app built again in the
// same process (the tests build hundreds) reuses what was compiled before; Fastify's own factories pool the same
// way, but per app.
import { AjvCompiler } from '@fastify/ajv-compiler';
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/**
 * Validators: Fastify's pool keeps one Ajv per set of shared schemas and options, and Ajv keeps each schema object
 * it compiled, so a route schema defined once in its module is compiled once per process.
 */
export const buildValidator = AjvCompiler();

const serializerFactory = SerializerSelector();
const serializers = new Map<string, WeakMap<object, Serializer>>();

/** Serializers: fast-json-stringify keeps nothing, so each compiled function is kept by its schema object. */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const key = JSON.stringify(externalSchemas ?? {}) + JSON.stringify(options ?? {});
  let compiled = serializers.get(key);
  if (!compiled) {
    compiled = new WeakMap();
    serializers.set(key, compiled);
  }
  const cache = compiled;
  const build = serializerFactory(externalSchemas, options);
  return (route) => {
    const schema = route.schema as object;
    let serialize = cache.get(schema);
    if (!serialize) {
      serialize = build(route);
      cache.set(schema, serialize);
    }
    return serialize;
  };
};
