import { Type } from 'typebox';

export const ImportQuery = Type.Object(
  {
    dry_run: Type.Boolean({ default: false, description: 'count what the import would do, write nothing' }),
    capture: Type.Boolean({
      default: false,
      description: "also queue a capture of each bookmark's page (a bookmark file; once per link and space)",
    }),
  },
  { additionalProperties: false },
);

export const ImportReport = Type.Object(
  {
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0 }),
    unchanged: Type.Integer({
      minimum: 0,
      description: 'matched an existing page or reference that was the same',
    }),
    skipped: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
    captures: Type.Integer({ minimum: 0, description: 'capture jobs queued' }),
    dry_run: Type.Boolean(),
  },
  { $id: 'ImportReport' },
);

/** The import form as the OpenAPI document shows it. */
export const ImportForm = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'a zip of Markdown files, or a Netscape bookmark file (.html) as browsers export them',
  }),
});

const Rows = Type.Array(Type.Record(Type.String(), Type.Unknown()));

export const ExportJson = Type.Object(
  {
    schema_version: Type.Integer({ description: 'the last migration applied when the export was made' }),
    exported_at: Type.String({ format: 'date-time' }),
    hub_version: Type.String(),
    spaces: Rows,
    pages: Rows,
    projects: Rows,
    tasks: Rows,
    project_refs: Rows,
    refs: Rows,
    resources: Rows,
    resource_dependencies: Rows,
    source_docs: Rows,
    settings: Rows,
    integrations: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'each stored secret as { "set": true }, never its value',
    }),
  },
  { $id: 'ExportJson' },
);
