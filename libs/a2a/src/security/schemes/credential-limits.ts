/**
 * Longest credential a scheme reads, in bytes, before any parsing: far above real tokens and keys (a JWT with many
 * claims is 2–4 KiB), far below what parsers would be made to chew on (Node itself takes 16 KiB of headers, 64 KiB on
 * HTTP/2).
 */
export const DEFAULT_MAX_CREDENTIAL_BYTES = 8192;
