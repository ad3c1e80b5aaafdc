import type { MethodDefinition } from '@grpc/proto-loader';

/** A gRPC message's frame header: a compressed flag byte, then the message's length (4 bytes, big-endian). */
export const FRAME_HEADER_BYTES = 5;

/** The message `value` serializes to, with its gRPC frame header; undefined when it does not serialize. */
export function messageFrame(method: MethodDefinition<object, object>, value: unknown): Buffer | undefined {
  let body: Buffer;
  try {
    body = method.responseSerialize(value as object);
  } catch {
    return undefined;
  }
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(body.length, 1);
  body.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

/** The bytes of a call's one request message, as they arrive. */
export class RequestFrameReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  /** The request message's length, from its frame header once that is in. */
  private declared: number | undefined;

  /** Takes `chunk`; returns the length the frame header declares when this chunk completed the header. */
  add(chunk: Buffer): number | undefined {
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.declared !== undefined || this.received < FRAME_HEADER_BYTES) return undefined;
    this.declared = (this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks)).readUInt32BE(1);
    return this.declared;
  }

  /** More bytes came than the one message the header declared. */
  get overrun(): boolean {
    return this.declared !== undefined && this.received > FRAME_HEADER_BYTES + this.declared;
  }

  /** The whole message is in. */
  get complete(): boolean {
    return this.declared !== undefined && this.received >= FRAME_HEADER_BYTES + this.declared;
  }

  /** The message's bytes, past its frame header; the reader keeps nothing after. */
  take(): Buffer {
    const frame = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.drop();
    return frame.subarray(FRAME_HEADER_BYTES);
  }

  drop(): void {
    this.chunks.length = 0;
  }
}
