// The capture and the upload as deferred actions of the write registry (domains/entities/registry.ts): what the
// owner's request, an owner-tier agent's audited write and an approved suggest-tier proposal all run, so an
// approved capture does exactly what the owner's own request would. Only `create` exists for them.
import type { Config } from '../../config.ts';
import { hubError } from '../../lib/errors.ts';
import { type Extracted, ExtractionError, extractDocument, sniffType } from '../../lib/extract.ts';
import type { Db } from '../../plugins/db.ts';
import type { Entity, EntityHandler, WriteContext } from '../entities/handler.ts';
import { validator } from '../entities/handler.ts';
import { insertSourceDoc, type SourceDocRow } from '../source-docs/store.ts';
import { type CaptureResult, captureIn, targetSpace } from './capture.ts';
import { checkCaptureUrl } from './routing.ts';
import { CaptureBody, UploadChange } from './schema.ts';
import type { CaptureRow } from './store.ts';

const checkCapture = validator(CaptureBody, 'capture');
const checkUpload = validator(UploadChange, 'upload');

function configOf(ctx: WriteContext): Config {
  // Every path that reaches these handlers passes the configuration; a caller that forgot it is a bug.
  if (!ctx.config) throw new Error('captures and uploads need the configuration in the write context');
  return ctx.config;
}

function createOnly(what: string): Pick<EntityHandler, 'update' | 'delete'> {
  const refuse = async (): Promise<Entity> => {
    throw hubError('BAD_REQUEST', `a ${what} can only be created`);
  };
  return { update: refuse, delete: refuse };
}

/** A capture as the registry returns it: the row, and whether the key had been captured already. */
export type CaptureEntity = CaptureRow & { duplicate: boolean };

export function captureResultOf(entity: Entity): CaptureResult {
  const { duplicate, ...capture } = entity as CaptureEntity;
  return { capture, duplicate };
}

export const captureHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const config = configOf(ctx);
    const body = checkCapture(payload);
    const url = checkCaptureUrl(body.url, config);
    const spaceId = await targetSpace(tx, ctx.principal, body.space_id);
    const result = await captureIn(tx, config, {
      url,
      idempotency_key: body.idempotency_key,
      space_id: spaceId,
      title: body.title?.trim() || null,
      via: 'api',
    });
    const entity: CaptureEntity = { ...result.capture, duplicate: result.duplicate };
    return entity;
  },
  ...createOnly('capture'),
};

export interface UploadedFile {
  bytes: Buffer;
  filename: string;
  mimetype: string;
}

/** Checks an uploaded file's type against its content, extracts its text and stores it as a source document. */
export async function storeUpload(
  tx: Db,
  config: Pick<Config, 'documentMaxChars'>,
  upload: UploadedFile & { space_id: string; title: string | null },
): Promise<SourceDocRow> {
  if (upload.bytes.length === 0) throw hubError('BAD_REQUEST', 'the file is empty');
  const type = sniffType(upload.bytes, upload.mimetype, upload.filename);
  if (!type) {
    throw hubError(
      'UNSUPPORTED_MEDIA_TYPE',
      `${upload.filename || 'the file'} (${upload.mimetype}) is not text, Markdown, HTML or PDF, ` +
        'or its content is not what its type says',
    );
  }
  let extracted: Extracted;
  try {
    extracted = await extractDocument(upload.bytes, type, undefined, config.documentMaxChars);
  } catch (error) {
    if (error instanceof ExtractionError) throw hubError('UNPROCESSABLE', error.message);
    throw error;
  }
  return insertSourceDoc(tx, {
    space_id: upload.space_id,
    url: null,
    title: upload.title ?? extracted.title ?? (upload.filename || 'Upload'),
    content: extracted.content,
    content_type: extracted.content_type,
    origin: 'upload',
    metadata: { ...extracted.metadata, filename: upload.filename, bytes: upload.bytes.length },
  });
}

/** The payload of an upload write: the file travels base64-encoded, so a proposal keeps it until approval. */
export function uploadPayload(
  file: UploadedFile,
  spaceId: string,
  title: string | null,
): Record<string, unknown> {
  return {
    space_id: spaceId,
    ...(title === null ? {} : { title }),
    filename: file.filename,
    mimetype: file.mimetype,
    content_base64: file.bytes.toString('base64'),
  };
}

export const uploadHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const config = configOf(ctx);
    const input = checkUpload(payload);
    const bytes = Buffer.from(input.content_base64, 'base64');
    if (bytes.length > config.uploadMaxBytes) {
      throw hubError(
        'PAYLOAD_TOO_LARGE',
        `the file is larger than UPLOAD_MAX_BYTES (${config.uploadMaxBytes} bytes)`,
      );
    }
    const spaceId = await targetSpace(tx, ctx.principal, input.space_id);
    return storeUpload(tx, config, {
      bytes,
      filename: input.filename,
      mimetype: input.mimetype,
      space_id: spaceId,
      title: input.title?.trim().slice(0, 500) || null,
    });
  },
  ...createOnly('upload'),
};
