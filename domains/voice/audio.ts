// What an audio upload is, by its bytes (never its name or declared type), and how long it lasts where the format's
// header says so (WAV: data size over byte rate; FLAC: STREAMINFO's total samples over sample rate). Both read only
// the file's first bytes (its head) and its size, so the audio itself is never held in memory.

export interface AudioType {
  contentType: string;
  extension: string;
}

export function sniffAudio(bytes: Buffer): AudioType | null {
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString('latin1');
  if (bytes.length < 12) return null;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE')
    return { contentType: 'audio/wav', extension: 'wav' };
  if (ascii(0, 4) === 'fLaC') return { contentType: 'audio/flac', extension: 'flac' };
  if (ascii(0, 4) === 'OggS') return { contentType: 'audio/ogg', extension: 'ogg' };
  if (bytes.readUInt32BE(0) === 0x1a45dfa3) return { contentType: 'audio/webm', extension: 'webm' };
  if (ascii(4, 8) === 'ftyp') return { contentType: 'audio/mp4', extension: 'm4a' };
  // MP3: an ID3v2 tag, or an MPEG audio frame sync (11 set bits) with a valid layer.
  if (ascii(0, 3) === 'ID3') return { contentType: 'audio/mpeg', extension: 'mp3' };
  if (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0 && (bytes[1] & 0x06) !== 0) {
    return { contentType: 'audio/mpeg', extension: 'mp3' };
  }
  return null;
}

function wavDuration(bytes: Buffer, totalSize: number): number | null {
  let offset = 12;
  let byteRate: number | null = null;
  while (offset + 8 <= bytes.length) {
    const id = bytes.subarray(offset, offset + 4).toString('latin1');
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 20 <= bytes.length) byteRate = bytes.readUInt32LE(offset + 16);
    if (id === 'data') {
      if (!byteRate) return null;
      // A streamed WAV may say 0 or 0xFFFFFFFF: then the rest of the file is the data.
      const dataSize = size === 0 || size === 0xffffffff ? totalSize - offset - 8 : size;
      return dataSize / byteRate;
    }
    offset += 8 + size + (size % 2);
  }
  return null;
}

function flacDuration(bytes: Buffer): number | null {
  // 'fLaC', then a metadata block header (type 0 = STREAMINFO, 34 bytes).
  if (bytes.length < 8 + 34 || (bytes[4] & 0x7f) !== 0) return null;
  const info = bytes.subarray(8, 8 + 34);
  const sampleRate = (info[10] << 12) | (info[11] << 4) | (info[12] >> 4);
  const totalSamples = (info[13] & 0x0f) * 2 ** 32 + info.readUInt32BE(14);
  if (!sampleRate || !totalSamples) return null;
  return totalSamples / sampleRate;
}

/**
 * Seconds of audio per the header, rounded to milliseconds, or null where the format carries none here. `head` is the
 * file's start, `totalSize` its whole size.
 */
export function headerDuration(head: Buffer, totalSize: number, type: AudioType): number | null {
  const seconds =
    type.contentType === 'audio/wav'
      ? wavDuration(head, totalSize)
      : type.contentType === 'audio/flac'
        ? flacDuration(head)
        : null;
  return seconds === null || !Number.isFinite(seconds) ? null : Math.round(seconds * 1000) / 1000;
}
