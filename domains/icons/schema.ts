import { type Static, Type } from 'typebox';
import { maxPageSize, Offset, Paginated, Timestamp } from '../../lib/schemas.ts';

export const setNamePattern = '^[a-z0-9-]{1,40}$';
export const iconFilePattern = /^([a-z0-9-]+)\.(svg|png)$/;

export const IconSet = Type.Object(
  {
    name: Type.String({ pattern: setNamePattern }),
    icon_count: Type.Integer({ minimum: 0 }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'IconSet' },
);
export type IconSet = Static<typeof IconSet>;

export const IconSetList = Type.Object({ items: Type.Array(Type.Ref('IconSet')) });

const IconType = Type.Union([Type.Literal('svg'), Type.Literal('png')]);

export const IconInfo = Type.Object({
  name: Type.String(),
  type: IconType,
  size: Type.Integer({ description: 'bytes' }),
  sha256: Type.String(),
  ref: Type.String({ description: 'the iconRef naming it: set:<set>:<name>' }),
  url: Type.String(),
});

export const IconSetDetail = Type.Object({
  name: Type.String(),
  icon_count: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
  icons: Type.Array(IconInfo),
});

export const Rejected = Type.Object({ file: Type.String(), reason: Type.String() });

export const UploadResult = Type.Object({
  set: Type.Ref('IconSet'),
  accepted: Type.Array(
    Type.Object({ file: Type.String(), name: Type.String(), type: IconType, url: Type.String() }),
  ),
  rejected: Type.Array(Rejected),
});

export const AddedIcon = Type.Object({
  name: Type.String(),
  type: IconType,
  size: Type.Integer(),
  sha256: Type.String(),
  ref: Type.String(),
  url: Type.String(),
});

export const ReplaceQuery = Type.Object({
  replace: Type.Boolean({ default: false, description: 'replace an existing set (or icon) of that name' }),
});

export const SetParams = Type.Object({ set: Type.String({ maxLength: 200 }) });
export const FileParams = Type.Object({
  set: Type.String({ maxLength: 200 }),
  file: Type.String({ maxLength: 200 }),
});
export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200 }) });

const color = Type.String({
  pattern: '^#?[0-9a-fA-F]{6}$',
  description: 'six hex digits, with or without # (send # as %23); brand and mdi icons only',
});
const set = Type.String({ pattern: setNamePattern, description: 'look in this uploaded set only' });
const fallback = Type.Optional(
  Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')], {
    description:
      '1: for an unknown name, a generated tile (its first letter on a colour of its own) instead of 404',
  }),
);

/** Whether ?fallback= asks for a tile. */
export function wantsFallback(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

export const PngQuery = Type.Object({
  size: Type.Integer({
    minimum: 16,
    maximum: 512,
    default: 64,
    description:
      'width and height in pixels, snapped up to the next of 16, 24, 32, 48, 64, 96, 128, 192, 256, 512 (SVG ' +
      'sources; a PNG set icon is sent as uploaded)',
  }),
  color: Type.Optional(color),
  set: Type.Optional(set),
  fallback,
});
export type PngQuery = Static<typeof PngQuery>;

export const SvgQuery = Type.Object({ color: Type.Optional(color), set: Type.Optional(set), fallback });

export const MdiParams = Type.Object({ name: Type.String({ maxLength: 200 }) });
export const MdiPngQuery = Type.Object({ size: PngQuery.properties.size, color: Type.Optional(color) });
export const MdiSvgQuery = Type.Object({ color: Type.Optional(color) });

export const SearchQuery = Type.Object({
  q: Type.String({
    maxLength: 100,
    default: '',
    description: 'part of a brand slug or title, or an icon name',
  }),
  limit: Type.Integer({ minimum: 1, maximum: maxPageSize, default: 50 }),
  offset: Offset,
});

export const SearchHit = Type.Object({
  ref: Type.String({ description: 'the iconRef: brand:<slug>, set:<set>:<name> or mdi:<name>' }),
  source: Type.Union([Type.Literal('brand'), Type.Literal('set'), Type.Literal('mdi')]),
  name: Type.String(),
  title: Type.String(),
  set: Type.Union([Type.String(), Type.Null()]),
  type: IconType,
  hex: Type.Union([Type.String(), Type.Null()], { description: 'the brand colour' }),
  url: Type.String(),
});
export const SearchResult = Paginated(SearchHit);

export const UrlUpload = Type.Object({
  name: Type.String({ pattern: setNamePattern }),
  url: Type.String({ maxLength: 2048 }),
});

/** The bytes of an icon (the serializer never touches a Buffer), or nothing when the ETag still matches. */
export const IconBytes = (type: string) => ({
  200: Type.String({ format: 'binary', description: `the icon (${type})` }),
  304: Type.Null({ description: 'Not modified: the If-None-Match ETag is current' }),
});
