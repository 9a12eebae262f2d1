// The capture and the upload as deferred actions of the write registry (domains/entities/registry.ts): what the
// owner's request, an owner-tier agent's audited write and an approved suggest-tier proposal all run, so an
// approved capture does exactly what the owner's own request would. Only `create` exists for them. An upload's
// file travels beside the payload, on disk (the write's `file`): a proposal keeps it there until it is decided.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Config } from '../../config/index.ts';
import { hubError } from '../../lib/errors.ts';
import { type Extracted, ExtractionError, extractDocument, sniffType } from '../../lib/extract.ts';
import type { Db } from '../../plugins/db.ts';
import type { Entity, EntityHandler, WriteContext, WriteFile } from '../entities/handler.ts';
import { validator } from '../entities/handler.ts';
import { insertSourceDoc, type SourceDocRow } from '../source-docs/documents.ts';
import { type CaptureResult, captureIn, targetSpace } from './accept.ts';
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

function unsupported(name: string, type: string) {
  return hubError(
    'UNSUPPORTED_MEDIA_TYPE',
    `${name || 'the file'} (${type}) is not text, Markdown, HTML or PDF, or its content is not what its type says`,
  );
}

/** Checks an uploaded file's type against its content, extracts its text and stores it as a source document. */
export async function storeUpload(
  tx: Db,
  config: Pick<Config, 'capture'>,
  upload: UploadedFile & { space_id: string; title: string | null },
): Promise<SourceDocRow> {
  if (upload.bytes.length === 0) throw hubError('BAD_REQUEST', 'the file is empty');
  const type = sniffType(upload.bytes, upload.mimetype, upload.filename);
  if (!type) throw unsupported(upload.filename, upload.mimetype);
  let extracted: Extracted;
  try {
    extracted = await extractDocument(upload.bytes, type, undefined, config.capture.documentMaxChars);
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

/** The bytes of a write's file, which must still be the ones it was received (or proposed) with. */
async function readWriteFile(file: WriteFile): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw hubError('PENDING_FILE_MISSING', `the uploaded file ${file.name || ''} is missing on disk`.trim());
  }
  if (bytes.length !== file.size || createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
    throw hubError(
      'PENDING_FILE_CHANGED',
      `the uploaded file ${file.name} on disk is not the one proposed (size or SHA-256 differ)`,
    );
  }
  return bytes;
}

export const uploadHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const config = configOf(ctx);
    const input = checkUpload(payload);
    const file = ctx.file;
    if (!file) throw hubError('VALIDATION_FAILED', 'an upload carries its file');
    if (file.size > config.capture.uploadMaxBytes) {
      throw hubError(
        'PAYLOAD_TOO_LARGE',
        `the file is larger than UPLOAD_MAX_BYTES (${config.capture.uploadMaxBytes} bytes)`,
      );
    }
    if (file.size === 0) throw hubError('BAD_REQUEST', 'the file is empty');
    const spaceId = await targetSpace(tx, ctx.principal, input.space_id);
    if (ctx.rehearsal && file.head) {
      // A proposal is checked by what its file's first bytes show (the type); its text is extracted on approval,
      // so proposing never reads the whole file into memory. The rehearsal is rolled back: nothing is stored.
      if (!sniffType(file.head, file.type, file.name)) throw unsupported(file.name, file.type);
      return { id: file.sha256, space_id: spaceId };
    }
    return storeUpload(tx, config, {
      bytes: await readWriteFile(file),
      filename: file.name,
      mimetype: file.type,
      space_id: spaceId,
      title: input.title?.trim().slice(0, 500) || null,
    });
  },
  ...createOnly('upload'),
};
