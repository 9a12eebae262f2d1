import { type Static, Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Patch, Timestamp } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';
import { NullableIconRef } from '../icons/icon-ref.ts';

export const deviceStatuses = ['new', 'known', 'ignored'] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];

const Status = Type.Union([Type.Literal('new'), Type.Literal('known'), Type.Literal('ignored')]);
const NullableText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);
const MacInput = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or AABBCCDDEEFF, any case',
});
const IpAddress = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }], maxLength: 64 });

export const Device = Type.Object(
  {
    mac: Type.String({ description: 'lowercase, colon-separated' }),
    ip: Type.Union([Type.String(), Type.Null()]),
    hostname: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    vendor: Type.Union([Type.String(), Type.Null()]),
    random_mac: Type.Boolean({ description: 'a locally administered (private, randomised) address' }),
    icon: Type.Union([Type.String(), Type.Null()]),
    icon_url: Type.Union([Type.String(), Type.Null()]),
    notes: Type.Union([Type.String(), Type.Null()]),
    type: Type.Union([Type.String(), Type.Null()]),
    location: Type.Union([Type.String(), Type.Null()]),
    status: Status,
    present: Type.Boolean(),
    watch: Type.Boolean({
      description: 'watched: absent from scans for a while raises device.offline, its return device.online',
    }),
    owner_fields: Type.Array(Type.String(), { description: 'fields the owner set; scans leave them alone' }),
    first_seen: Timestamp,
    last_seen: NullableTimestamp,
  },
  { $id: 'Device' },
);
export type Device = Static<typeof Device>;

export const CreateDevice = Type.Object(
  { mac: MacInput, ip: Type.Optional(IpAddress), name: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
export type CreateDevice = Static<typeof CreateDevice>;

const ownerFields = {
  name: NullableText(200),
  icon: NullableIconRef,
  notes: NullableText(10_000),
  type: NullableText(100),
  location: NullableText(200),
};

export const UpdateDevice = Patch({
  ...ownerFields,
  ip: Type.Union([IpAddress, Type.Null()]),
  status: Type.Union([Type.Literal('known'), Type.Literal('ignored')]),
  watch: Type.Boolean(),
});
export type UpdateDevice = Static<typeof UpdateDevice>;

export const ReviewDevice = Type.Object(
  {
    action: Type.Union([Type.Literal('accept'), Type.Literal('ignore')]),
    name: Type.Optional(ownerFields.name),
    icon: Type.Optional(ownerFields.icon),
    type: Type.Optional(ownerFields.type),
    location: Type.Optional(ownerFields.location),
  },
  { additionalProperties: false },
);
export type ReviewDevice = Static<typeof ReviewDevice>;

export const MacParams = Type.Object({ mac: Type.String({ maxLength: 40 }) });

export const DeviceListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    status: Type.Optional(Status),
    present: Type.Optional(Type.Boolean()),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'name, host name, IP, MAC or vendor' })),
  }),
]);
export type DeviceListQuery = Static<typeof DeviceListQuery>;

export const DeviceList = Paginated(Type.Ref('Device'));

export const ScanPayload = Type.Object({}, { additionalProperties: false });
export const ScanAccepted = Type.Object({ job_id: Type.String(), task: Type.Literal('devices.scan') });

export const devicesScanTask = defineTask({
  name: 'devices.scan',
  payload: ScanPayload,
  description:
    'Reads the neighbour table, DHCP leases and the scan command, and updates the LAN device inventory',
  maxAttempts: 3,
});
