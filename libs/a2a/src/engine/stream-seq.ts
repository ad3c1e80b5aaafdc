/**
 * The task version each stream frame brings its reader to, kept beside the frame rather than in it: frames are the
 * protocol's StreamResponse messages, shared by every subscriber, and the SSE writers put the number in `id:`.
 */
const seqs = new WeakMap<object, number>();

export function withSeq<T extends object>(response: T, seq: number): T {
  seqs.set(response, seq);
  return response;
}

export function seqOf(response: object): number | undefined {
  return seqs.get(response);
}
