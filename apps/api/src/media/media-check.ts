/** What a media file's bytes are, by their signature (magic numbers), whatever type the upload claimed. */
export function sniffContentType(bytes: Buffer): 'image/png' | 'image/jpeg' | 'application/pdf' | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 5 && bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return undefined;
}

/** The verdict of a scanner on one file. */
export interface ScanVerdict {
  clean: boolean;
  /** Why not (logged and kept on the record, never answered). */
  reason?: string;
}

/**
 * A pluggable scanner (an antivirus, a content policy) run on every upload after the type
 * and size checks: a file it does not find clean is quarantined. The default finds every
 * file clean; a deployment plugs its own in the composition root (`MediaService.scanner`).
 */
export type MediaScanner = (file: { id: string; contentType: string; bytes: Buffer }) => Promise<ScanVerdict>;

export const acceptAll: MediaScanner = async () => ({ clean: true });

/** The check an upload passes to become AVAILABLE: a known type by its bytes, within the limit, and clean to the scanner. */
export async function checkMedia(id: string, bytes: Buffer, maxBytes: number, scanner: MediaScanner): Promise<{ contentType: string } | { quarantine: string }> {
  if (bytes.length > maxBytes) return { quarantine: `larger than ${maxBytes} bytes` };
  const contentType = sniffContentType(bytes);
  if (!contentType) return { quarantine: 'not a PNG, JPEG or PDF file' };
  const verdict = await scanner({ id, contentType, bytes });
  if (!verdict.clean) return { quarantine: `scanner: ${verdict.reason ?? 'not clean'}` };
  return { contentType };
}
