import { tooDeepAt } from '../../../libs/a2a/src/json/json-depth.js';

function nestedArrays(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('tooDeepAt', () => {
  it('counts containers: a scalar is 0 deep, {} and [1] are 1, [[1]] is 2', () => {
    expect(tooDeepAt('text', 0)).toBeUndefined();
    expect(tooDeepAt(null, 0)).toBeUndefined();
    expect(tooDeepAt({}, 0)).toBe('');
    expect(tooDeepAt({}, 1)).toBeUndefined();
    expect(tooDeepAt([1], 1)).toBeUndefined();
    expect(tooDeepAt([[1]], 1)).toBe('[0]');
    expect(tooDeepAt([[1]], 2)).toBeUndefined();
  });

  it('names the path of the first container past the limit', () => {
    expect(tooDeepAt({ a: [1, { b: { c: [] } }] }, 3)).toBe('.a[1].b');
    expect(tooDeepAt({ ok: { x: 1 }, deep: [[[]]] }, 3)).toBe('.deep[0][0]');
  });

  it('looks at every branch, not only the first', () => {
    expect(tooDeepAt([[1], [1], [[[1]]]], 3)).toBe('[2][0][0]');
  });

  it('walks 1,000,000 levels without using the call stack', () => {
    expect(tooDeepAt(nestedArrays(1_000_000), 32)).toBe('[0]'.repeat(32));
    expect(tooDeepAt(nestedArrays(1_000_000), 2_000_000)).toBeUndefined();
  });

  it('reports a cycle as too deep instead of looping', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(tooDeepAt(cyclic, 3)).toBe('.self.self.self');
  });
});
