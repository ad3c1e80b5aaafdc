import { decodeCursor, encodeCursor, isAfterCursor } from '../../../libs/a2a/src/store/list-cursor.js';
import { InvalidPageTokenError } from '../../../libs/a2a/src/store/task.store.js';

const alice = { tenant: '', owner: 'apiKey:alice' };

describe('list cursor', () => {
  it('round-trips through an opaque, URL-safe token', () => {
    const cursor = { timestamp: Date.parse('2026-03-01T12:00:00.000Z'), id: 'tâche/1?&=' };
    const token = encodeCursor(cursor, alice);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, alice)).toEqual(cursor);
  });

  it('refuses a token made for another owner or another tenant (spec §13.1)', () => {
    const token = encodeCursor({ timestamp: 1, id: 'x' }, alice);
    expect(() => decodeCursor(token, { tenant: '', owner: 'apiKey:bob' })).toThrow(InvalidPageTokenError);
    expect(() => decodeCursor(token, { tenant: 't-2', owner: 'apiKey:alice' })).toThrow(InvalidPageTokenError);
  });

  it.each([
    ['empty', ''],
    ['not base64 JSON', '%%%'],
    ['a JSON object', Buffer.from('{"timestamp":1,"id":"x"}').toString('base64url')],
    ['a tuple of two (no scope)', Buffer.from('[1,"x"]').toString('base64url')],
    ['a tuple of three with a foreign tag', Buffer.from('[1,"x","AAAAAAAAAAAAAAAA"]').toString('base64url')],
    ['a non-numeric timestamp', Buffer.from('["1","x"]').toString('base64url')],
    ['an infinite timestamp', Buffer.from('[1e999,"x"]').toString('base64url')],
    ['a non-string id', Buffer.from('[1,2]').toString('base64url')],
  ])('rejects %s', (_label, token) => {
    expect(() => decodeCursor(token, alice)).toThrow(InvalidPageTokenError);
  });

  it('orders by timestamp descending, then id descending', () => {
    const cursor = { timestamp: 100, id: 'm' };
    expect(isAfterCursor({ timestamp: 99, id: 'z' }, cursor)).toBe(true);
    expect(isAfterCursor({ timestamp: 100, id: 'a' }, cursor)).toBe(true);
    expect(isAfterCursor({ timestamp: 100, id: 'm' }, cursor)).toBe(false);
    expect(isAfterCursor({ timestamp: 100, id: 'z' }, cursor)).toBe(false);
    expect(isAfterCursor({ timestamp: 101, id: 'a' }, cursor)).toBe(false);
  });
});
