// The network hosts domain's tool: the inventory with the audit's findings.
import { Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';
import { type Tool, tool } from '../mcp/tool.ts';
import { auditHosts, findingKinds } from './audit.ts';
import { listNetworkHosts } from './store.ts';

const NetworkAuditArgs = Type.Object(
  {
    stale_after_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 7,
      description: 'a host not seen for this many days is reported',
    }),
  },
  { additionalProperties: false },
);

const Finding = Type.Object({
  kind: Type.Enum([...findingKinds]),
  severity: Type.Enum(['warning', 'info']),
  host_ids: Type.Array(Uuid),
  message: Type.String(),
});

const NetworkAudit = Type.Object({
  checked_at: Timestamp,
  stale_after_days: Type.Integer(),
  hosts: Type.Array(Type.Ref('NetworkHost')),
  findings: Type.Array(Finding),
});

export const networkHostTools: Tool[] = [
  tool({
    name: 'network_audit',
    title: 'Network audit',
    description:
      'The network host inventory with findings: hosts not seen recently or never, addresses shared by several ' +
      'hosts, missing address, role or operating system.',
    input: NetworkAuditArgs,
    output: NetworkAudit,
    readOnly: true,
    async run(args, ctx) {
      const hosts = await listNetworkHosts(ctx.sql);
      const now = new Date();
      return {
        checked_at: now,
        stale_after_days: args.stale_after_days,
        hosts,
        findings: auditHosts(hosts, now, args.stale_after_days),
      };
    },
  }),
];
