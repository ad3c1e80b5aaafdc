import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { runInNewContext } from 'node:vm';
import { canonicalJson, JcsError, JCS_MAX_DEPTH } from '../../../libs/a2a/src/json/jcs.js';

/** canonicalize@4 (RFC 8785 by one of its authors) is the oracle wherever both accept the input. */
function oracle(value: unknown): string {
  return canonicalize(value) as string;
}

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  // RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('writes the double %s as %s', (bits, text) => {
    const value = fromBits(bits);
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson(value)).toBe(oracle(value));
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
    ['fff0000000000000', '-Infinity'],
  ])('refuses the double %s (%s)', (bits) => {
    expect(() => canonicalJson(fromBits(bits))).toThrow(JcsError);
    expect(() => canonicalJson([fromBits(bits)])).toThrow(JcsError);
  });

  it.each([
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [-0, '0'],
    [5e-324, '5e-324'],
    // RFC 8785's own example: the literal has more digits than a double holds, which is the point.
    // eslint-disable-next-line no-loss-of-precision
    [333333333.33333329, '333333333.3333333'],
    [4.5, '4.5'],
    [2e-3, '0.002'],
  ])('writes %p in the shortest ES form %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('refuses integers beyond doubles (bigint) and other non-JSON values', () => {
    for (const value of [
      2n ** 64n,
      undefined,
      () => 1,
      Symbol('s'),
      new Date(0),
      new Map(),
      [undefined],
      { a: { b: 1n } },
    ]) {
      expect(() => canonicalJson(value)).toThrow(JcsError);
    }
  });

  it('takes plain objects of another realm (a card parsed in a vm context), and still refuses class instances', () => {
    expect(canonicalJson(runInNewContext('({ b: [1, { c: "x" }], a: null })'))).toBe('{"a":null,"b":[1,{"c":"x"}]}');
    class Point {
      x = 1;
    }
    expect(() => canonicalJson(new Point())).toThrow(JcsError);
    expect(() => canonicalJson(runInNewContext('new Date(0)'))).toThrow(JcsError);
  });

  it('leaves out members whose value is undefined, as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('escapes only ", \\ and U+0000–U+001F, the short forms where JSON has them', () => {
    const text = '"\\\b\t\n\f\r\u0000\u0001\u001f\u007f\u2028\u2029/é😀\u000b';
    expect(canonicalJson(text)).toBe('"\\"\\\\\\b\\t\\n\\f\\r\\u0000\\u0001\\u001f\u007f\u2028\u2029/é😀\\u000b"');
    expect(canonicalJson(text)).toBe(oracle(text));
  });

  it.each(['\ud800', '\udfff', 'a\ud83d', '\ude00b', '\ude00\ud83d'])(
    'refuses the lone surrogate in %j, in values and keys',
    (text) => {
      expect(() => canonicalJson(text)).toThrow(JcsError);
      expect(() => canonicalJson({ [text]: 1 })).toThrow(JcsError);
    },
  );

  it('sorts keys by UTF-16 code units, not code points', () => {
    const keys = ['\uffff', '😀', 'é', '\u0080', 'a', 'B'];
    const object = Object.fromEntries(keys.map((key, i) => [key, i]));
    expect(canonicalJson(object)).toBe('{"B":5,"a":4,"\u0080":3,"é":2,"😀":1,"\uffff":0}');
  });

  it('matches the RFC 8785 §3.2.3 sorting example and the §3.2.4 (ES6) sample', () => {
    const sorting = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    const values = [...canonicalJson(sorting).matchAll(/:"([^"]+)"/g)].map((match) => match[1]);
    expect(values).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(canonicalJson(sorting)).toBe(oracle(sorting));
    const sample = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(sample)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('writes no whitespace and keeps array order', () => {
    expect(canonicalJson({ b: [3, 1, 2], a: { d: null, c: true } })).toBe('{"a":{"c":true,"d":null},"b":[3,1,2]}');
  });

  it('keeps an own "__proto__" member of parsed JSON', () => {
    const value = JSON.parse('{"__proto__":{"x":1},"a":2}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":2}');
    expect(canonicalJson(Object.assign(Object.create(null), { b: 1 }))).toBe('{"b":1}');
  });

  it(`accepts ${JCS_MAX_DEPTH} levels of nesting and throws beyond, long before the call stack would`, () => {
    const nest = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
      return value;
    };
    expect(canonicalJson(nest(JCS_MAX_DEPTH))).toBe(oracle(nest(JCS_MAX_DEPTH)));
    expect(() => canonicalJson(nest(JCS_MAX_DEPTH + 1))).toThrow(JcsError);
    expect(() => canonicalJson(nest(100_000))).toThrow(JcsError);
  });

  it('agrees with canonicalize on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(canonicalJson(value)).toBe(oracle(value));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with canonicalize on random JSON with any code point in strings and keys', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), (value) => {
        expect(canonicalJson(value)).toBe(oracle(value));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly the UTF-16 strings canonicalize refuses, and writes the others alike', () => {
    const utf16 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 8 })
      .map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(utf16, (text) => {
        let expected: string | undefined;
        try {
          expected = oracle({ [text]: text });
        } catch {
          expected = undefined;
        }
        if (expected === undefined) expect(() => canonicalJson({ [text]: text })).toThrow(JcsError);
        else expect(canonicalJson({ [text]: text })).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
