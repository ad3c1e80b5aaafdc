import { copyData } from '../../../libs/a2a/src/store/data-copy.js';

describe('copyData', () => {
  it('copies plain objects and arrays deeply, as structuredClone does', () => {
    const value = {
      a: [1, { b: 'x', c: null, d: undefined }],
      e: { f: true },
      g: Object.assign(Object.create(null), { h: 1 }),
    };
    const copy = copyData(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
    expect(copy.e).not.toBe(value.e);
    expect('d' in (copy.a[1] as object)).toBe(true);
  });

  it('returns primitives as they are', () => {
    expect(copyData('s')).toBe('s');
    expect(copyData(0)).toBe(0);
    expect(copyData(null)).toBeNull();
    expect(copyData(undefined)).toBeUndefined();
  });

  it('hands anything else to structuredClone', () => {
    const when = new Date('2026-01-01T00:00:00.000Z');
    const copy = copyData({ data: { when } });
    // structuredClone may build it in another realm under Jest, so no instanceof.
    expect(Object.prototype.toString.call(copy.data.when)).toBe('[object Date]');
    expect(copy.data.when).not.toBe(when);
    expect(copy.data.when.getTime()).toBe(when.getTime());
  });
});

describe('copyData with keys that name the prototype machinery', () => {
  it.each(['__proto__', 'constructor', 'prototype'])(
    'copies a parsed "%s" member as an own member, never as the prototype',
    (key) => {
      const value = JSON.parse(`{"metadata":{"${key}":{"x":1},"a":2}}`) as { metadata: Record<string, unknown> };
      const copy = copyData(value);
      expect(Object.getPrototypeOf(copy.metadata)).toBe(Object.prototype);
      expect(Object.hasOwn(copy.metadata, key)).toBe(true);
      expect(Object.keys(copy.metadata)).toEqual([key, 'a']);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
      expect((copy.metadata as { x?: unknown }).x).toBeUndefined();
    },
  );
});
