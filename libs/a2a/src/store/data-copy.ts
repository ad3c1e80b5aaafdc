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
  for (const key in value) copy[key] = copyData((value as Record<string, unknown>)[key]);
  return copy as T;
}
