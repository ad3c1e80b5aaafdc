/**
 * The task version each stream frame brings its reader to, kept on the frame under a symbol: serializers (JSON, the
 * gRPC mapper, copies) see only string keys, so frames stay the protocol's StreamResponse messages, and the SSE writers
 * read the number for `id:`. A symbol-keyed property costs less per frame than a WeakMap entry.
 */
const SEQ = Symbol('nestjs-a2a.seq');

type Numbered = { [SEQ]?: number };

export function withSeq<T extends object>(response: T, seq: number): T {
  (response as Numbered)[SEQ] = seq;
  return response;
}

export function seqOf(response: object): number | undefined {
  return (response as Numbered)[SEQ];
}
