import { acceptsAnyOf } from '../../../libs/a2a/src/engine/media-types.js';

describe('acceptsAnyOf (spec §3.1.1)', () => {
  it('matches identical types', () => {
    expect(acceptsAnyOf(['text/plain'], ['text/plain'])).toBe(true);
    expect(acceptsAnyOf(['application/json'], ['text/plain', 'application/json'])).toBe(true);
  });

  it('rejects when no accepted type is produced', () => {
    expect(acceptsAnyOf(['image/png'], ['text/plain', 'application/json'])).toBe(false);
    expect(acceptsAnyOf(['text/html'], ['text/plain'])).toBe(false);
  });

  it('rejects when nothing is produced', () => {
    expect(acceptsAnyOf(['text/plain'], [])).toBe(false);
  });

  it('honours wildcards on the accepted side', () => {
    expect(acceptsAnyOf(['text/*'], ['text/markdown'])).toBe(true);
    expect(acceptsAnyOf(['*/*'], ['image/png'])).toBe(true);
    expect(acceptsAnyOf(['*'], ['image/png'])).toBe(true);
    expect(acceptsAnyOf(['image/*'], ['text/plain'])).toBe(false);
  });

  it('honours wildcards on the produced side', () => {
    expect(acceptsAnyOf(['image/png'], ['image/*'])).toBe(true);
    expect(acceptsAnyOf(['application/pdf'], ['*/*'])).toBe(true);
    expect(acceptsAnyOf(['application/pdf'], ['text/*'])).toBe(false);
  });

  it('ignores case and parameters', () => {
    expect(acceptsAnyOf(['Text/Plain'], ['text/plain; charset=utf-8'])).toBe(true);
    expect(acceptsAnyOf(['application/json;q=0.9'], ['APPLICATION/JSON'])).toBe(true);
  });
});
