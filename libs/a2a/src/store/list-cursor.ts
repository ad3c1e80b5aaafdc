import { createHash } from 'node:crypto';
import type { TaskScope } from '../context/call-context.js';
import { InvalidPageTokenError } from './task.store.js';

/** Position in the ListTasks order (status timestamp descending, then id descending). */
export interface ListCursor {
  timestamp: number;
  id: string;
}

/**
 * The page token: the position, tagged with the scope it was made for, so a token replayed by another owner or in
 * another tenant is refused (InvalidParams) rather than quietly paging through that caller's own list (spec
 * §13.1). The tag only binds; a query is always filtered by the caller's own scope.
 */
export function encodeCursor(cursor: ListCursor, scope: TaskScope): string {
  return Buffer.from(JSON.stringify([cursor.timestamp, cursor.id, scopeTag(scope)])).toString('base64url');
}

export function decodeCursor(token: string, scope: TaskScope): ListCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      Number.isFinite(value[0]) &&
      typeof value[1] === 'string' &&
      value[2] === scopeTag(scope)
    ) {
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

function scopeTag(scope: TaskScope): string {
  return createHash('sha256').update(`${scope.tenant}\0${scope.owner}`).digest('base64url').slice(0, 16);
}
