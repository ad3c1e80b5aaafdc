/** `limits.maxJsonDepth` when unset. */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/**
 * The highest `limits.maxJsonDepth` accepted. On gRPC each JSON level is two protobuf messages (Value, then Struct or
 * ListValue), and protobuf decoders, grpc-js's included, refuse more than 100 nested messages; the deepest free-form
 * value the protocol carries (StreamResponse → status update → status → message → part → data) starts six levels
 * down. 40 keeps every accepted value below that ceiling with room to spare.
 */
export const MAX_JSON_DEPTH_LIMIT = 40;

/** One container on the walk's stack; `parent` and `key` rebuild the path only when a value is too deep. */
interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number;
}

/**
 * Where `value` nests more than `maxDepth` arrays and objects, as a path relative to it (`[0].a[2]`; `''` for the value
 * itself), or undefined when it does not. A scalar has depth 0, `{}` and `[1]` depth 1, `[[1]]` depth 2. The walk keeps
 * its own stack, so any depth the JSON parser produced is measured without touching the call stack.
 */
export function tooDeepAt(value: unknown, maxDepth: number): string | undefined {
  if (!isContainer(value)) return undefined;
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > maxDepth) return pathOf(frame);
    const container = frame.value;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item: unknown = container[i];
        if (isContainer(item)) stack.push({ value: item, depth: frame.depth + 1, parent: frame, key: i });
      }
    } else {
      for (const key in container) {
        const item: unknown = (container as Record<string, unknown>)[key];
        if (isContainer(item)) stack.push({ value: item, depth: frame.depth + 1, parent: frame, key });
      }
    }
  }
  return undefined;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function pathOf(frame: Frame): string {
  const segments: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) {
    segments.push(typeof at.key === 'number' ? `[${at.key}]` : `.${at.key}`);
  }
  return segments.reverse().join('');
}
