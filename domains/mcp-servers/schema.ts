// The shapes of downstream MCP servers: what the owner sends (headers write-only), what the API shows (headers only
// as { set: true }), and each listed tool with its effective policy.
import { type Static, Type } from 'typebox';
import { NullableTimestamp, Patch, Timestamp, Uuid } from '../../lib/schemas.ts';

export const Policy = Type.Union([Type.Literal('pass'), Type.Literal('approve'), Type.Literal('deny')]);
export type Policy = Static<typeof Policy>;

const name = Type.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,39}$',
  description: 'the prefix of its tools: lowercase letters, digits and dashes',
});
const url = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2000,
  description: 'the Streamable HTTP endpoint',
});
const headerName = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$";
// No CR/LF or NUL: a value goes into an HTTP header as is.
const headerValue = Type.String({ minLength: 1, maxLength: 8000, pattern: '^[^\\r\\n\\x00]*$' });
const headersInput = Type.Record(
  Type.String({ pattern: headerName }),
  Type.Union([headerValue, Type.Null()]),
  {
    maxProperties: 20,
    description: 'header name: value (write-only, sealed at rest); null clears one, a name left out keeps it',
  },
);
const toolPolicy = Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Policy, {
  maxProperties: 500,
  description: 'per-tool overrides of the default policy',
});
const defaultPolicy = Type.Union([Policy, Type.Null()], {
  description:
    'the policy of tools without an override; null follows their annotations (readOnlyHint passes)',
});
const timeoutMs = Type.Integer({
  minimum: 100,
  maximum: 300_000,
  description: 'how long a connection, a listing or a call may take',
});

export const McpServerInput = Type.Object(
  {
    name,
    url,
    headers: Type.Optional(headersInput),
    enabled: Type.Optional(Type.Boolean()),
    tool_policy: Type.Optional(toolPolicy),
    default_policy: Type.Optional(defaultPolicy),
    timeout_ms: Type.Optional(timeoutMs),
  },
  { additionalProperties: false },
);
export type McpServerInput = Static<typeof McpServerInput>;

export const McpServerPatch = Patch({
  name,
  url,
  headers: headersInput,
  enabled: Type.Boolean(),
  tool_policy: toolPolicy,
  default_policy: defaultPolicy,
  timeout_ms: timeoutMs,
});
export type McpServerPatch = Static<typeof McpServerPatch>;

const Annotations = Type.Record(Type.String(), Type.Unknown(), {
  description: 'the tool’s own annotations (readOnlyHint, destructiveHint ...)',
});

export const McpServer = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    url: Type.String(),
    headers: Type.Record(Type.String(), Type.Object({ set: Type.Literal(true) }), {
      description: 'the header names stored; their values are never shown',
    }),
    enabled: Type.Boolean(),
    tool_policy: Type.Record(Type.String(), Policy),
    default_policy: Type.Union([Policy, Type.Null()]),
    timeout_ms: Type.Integer(),
    tool_count: Type.Integer(),
    protocol_version: Type.Union([Type.String(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()], {
      description: 'why the last connection failed (the server was then disabled)',
    }),
    refreshed_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'McpServer' },
);
export type McpServer = Static<typeof McpServer>;

export const McpServerList = Type.Object({ items: Type.Array(Type.Ref('McpServer')) });

/** A tool as the downstream listed it. */
export interface DownstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export const McpServerTool = Type.Object({
  name: Type.String({ description: 'the downstream’s own name' }),
  listed_as: Type.String({ description: 'the name agents see on /api/mcp' }),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  input_schema: Type.Record(Type.String(), Type.Unknown()),
  annotations: Annotations,
  policy: Policy,
  policy_source: Type.Union([Type.Literal('tool'), Type.Literal('default'), Type.Literal('annotations')]),
});
export const McpServerTools = Type.Object({ items: Type.Array(McpServerTool) });
