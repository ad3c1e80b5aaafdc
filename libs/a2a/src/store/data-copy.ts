/**
 * A deep copy of protocol data (tasks, messages, events: plain objects, arrays and primitives), with the result of
 * `structuredClone` but a fraction of its cost on the small objects of the hot path, where `structuredClone`'s fixed
 * overhead dominates. Anything that is not a plain object or an array (a Date in a skill's `data`, say) still goes
 * through `structuredClone`, so exotic values keep its semantics. Cycles are not supported: protocol data is a tree.
 */
export function copyData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyData(value[i]);
    return copy as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key in value) setOwn(copy, key, copyData((value as Record<string, unknown>)[key]));
  return copy as T;
}

/**
 * `target[key] = value` as JSON.parse does it: always an own data member. A plain assignment of `__proto__` would
 * replace the target's prototype instead, losing the member (a client's `{"__proto__": …}` in metadata or data).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
