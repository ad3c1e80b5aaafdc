/** The webhook's path when `path` is unset. */
export const DEFAULT_PUSH_PATH = '/a2a/push';

/** `maxBodyBytes` when unset. */
export const DEFAULT_PUSH_MAX_BODY_BYTES = 1024 * 1024;

/** `dedupWindow` when unset. */
export const DEFAULT_DEDUP_WINDOW = 10_000;

export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';
export const EVENT_ID_HEADER = 'x-a2a-event-id';

/** The body's media types: the protocol's, and plain JSON (§4.3.3 names the first; senders also use the second). */
export const PUSH_MEDIA_TYPES: ReadonlySet<string> = new Set(['application/a2a+json', 'application/json']);
