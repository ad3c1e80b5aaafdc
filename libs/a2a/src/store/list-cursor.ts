import { InvalidPageTokenError } from './task.store.js';

/** Position in the ListTasks order (status timestamp descending, then id descending). */
export interface ListCursor {
  timestamp: number;
  id: string;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.timestamp, cursor.id])).toString('base64url');
}

export function decodeCursor(token: string): ListCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isFinite(value[0]) && typeof value[1] === 'string') {
      return { timestamp: value[0], id: value[1] };
    }
  } catch {
    // fall through: a token we did not make
  }
  throw new InvalidPageTokenError();
}

/** True when a task at `position` comes after `cursor` in the list order. */
export function isAfterCursor(position: ListCursor, cursor: ListCursor): boolean {
  return position.timestamp < cursor.timestamp || (position.timestamp === cursor.timestamp && position.id < cursor.id);
}
