import { createHash } from 'node:crypto';
import { A2aError } from '../errors/a2a.error.js';
import type { SendMessageConfiguration } from '../protocol/a2a.types.js';

/**
 * The fields of a SendMessage `configuration` that change its outcome: which outputs the caller takes, whether the
 * call waits for the task, and where its events are pushed. `historyLength` only shapes the view of the answer, so a
 * retry may ask for another one.
 */
export const OUTCOME_FIELDS = ['acceptedOutputModes', 'returnImmediately', 'taskPushNotificationConfig'] as const;

/** Marks the digest's layout, so a later layout is told apart from this one instead of compared field by field. */
const DIGEST_LAYOUT = 'c1';

/**
 * A short digest of `configuration`'s {@link OUTCOME_FIELDS}, one hash per field, stored with a message id's claim
 * (`TaskStore.claimMessageId`): a retried send is compared with the first one field by field without keeping the
 * configuration itself (a push config's token stays out of the store's claims).
 */
export function sendConfigurationDigest(configuration: SendMessageConfiguration | undefined): string {
  return [DIGEST_LAYOUT, ...OUTCOME_FIELDS.map((field) => fieldDigest(field, configuration))].join(';');
}

/**
 * The {@link OUTCOME_FIELDS} in which `configuration` differs from the one `stored` digests; none when `stored` has
 * another layout (a claim written by another release), which cannot be compared.
 */
export function configurationChanges(stored: string, configuration: SendMessageConfiguration | undefined): string[] {
  const before = stored.split(';');
  if (before[0] !== DIGEST_LAYOUT || before.length !== OUTCOME_FIELDS.length + 1) return [];
  return OUTCOME_FIELDS.filter((field, i) => before[i + 1] !== fieldDigest(field, configuration));
}

/** The answer to a retried send whose configuration would change the first send's outcome: it cannot be both. */
export function changedConfigurationError(messageId: string, fields: string[]): A2aError {
  return A2aError.invalidParams(
    fields.map((field) => ({
      field: `configuration.${field}`,
      description: `differs from the first send of message ${messageId}; a retry resends the same configuration, another configuration needs a new messageId`,
    })),
  );
}

function fieldDigest(field: (typeof OUTCOME_FIELDS)[number], configuration?: SendMessageConfiguration): string {
  switch (field) {
    case 'acceptedOutputModes': {
      // A set of media types, whose type and subtype are case-insensitive (RFC 9110 §8.3.1).
      const modes = [...new Set((configuration?.acceptedOutputModes ?? []).map((mode) => mode.toLowerCase()))].sort();
      return modes.length > 0 ? hash(JSON.stringify(modes)) : '';
    }
    case 'returnImmediately':
      return configuration?.returnImmediately ? '1' : '0';
    case 'taskPushNotificationConfig': {
      const config = configuration?.taskPushNotificationConfig;
      return config ? hash(canonicalJson(config)) : '';
    }
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * JSON with members sorted and empty values (undefined, '', [], {}) left out, so that the same config over another
 * binding, which may spell an unset field either way, digests the same. Depth is bounded at ingress.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value) ?? null);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => canonical(item) ?? null);
    return items.length > 0 ? items : undefined;
  }
  if (value === null || typeof value !== 'object') return value === '' ? undefined : value;
  const entries = Object.keys(value)
    .sort()
    .map((key) => [key, canonical((value as Record<string, unknown>)[key])] as const)
    .filter(([, member]) => member !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
