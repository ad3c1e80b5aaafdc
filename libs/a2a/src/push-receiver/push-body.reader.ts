import type { Readable } from 'node:stream';

/** What reading a body gave: its bytes, or why there are none. */
export type BodyRead = { readonly bytes: Buffer } | { readonly refused: 'tooLarge' | 'aborted' };

/**
 * Reads a request body, at most `maxBytes` of it: past that it stops listening (the caller answers 413 and closes the
 * connection, so the rest is never read). A body that ends early (the sender went away) is `aborted`.
 */
export function readBodyAtMost(stream: Readable, maxBytes: number): Promise<BodyRead> {
  if (stream.readableEnded) return Promise.resolve({ bytes: Buffer.alloc(0) });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (read: BodyRead) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onAborted);
      stream.off('error', onAborted);
      resolve(read);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) {
        stream.pause();
        return finish({ refused: 'tooLarge' });
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish({ bytes: Buffer.concat(chunks, size) });
    const onAborted = () => finish({ refused: 'aborted' });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('close', onAborted);
    stream.on('error', onAborted);
  });
}
