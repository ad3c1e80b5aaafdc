import { isIP } from 'node:net';
import type { FieldViolation } from '../errors/a2a.error.js';
import type { TaskPushNotificationConfig } from '../protocol/a2a.types.js';
import { portOf, stripBrackets, type PushAddressPolicy } from './push-address.policy.js';
import { PushMessages } from './push.messages.js';

/** What the rules read of a config; the request validator has already checked the shape (spec §5.7). */
export type PushConfigFields = Pick<TaskPushNotificationConfig, 'url' | 'token' | 'authentication'>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Far above real tokens and credentials, and well inside the 16 KiB Node accepts for all request headers together. */
export const MAX_PUSH_SECRET_LENGTH = 4096;
/** IANA's longest registered scheme has 13 characters; the bound only keeps a hostile one from being huge. */
export const MAX_AUTH_SCHEME_LENGTH = 128;

// RFC 9110 §5.6.2 token: a scheme with a space or a colon would let the client write the rest of the header.
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Printable ASCII: no CR, LF or NUL (header injection), nothing Node would refuse only when sending.
const HEADER_VALUE = new RegExp(`^[\\x20-\\x7E]{0,${MAX_PUSH_SECRET_LENGTH}}$`);
// WHATWG parsing trims leading and trailing spaces and drops tabs and line breaks anywhere: refuse, don't reinterpret.
const SPACE_OR_CONTROL = /[\x00-\x20\x7F]/;

/**
 * The rules a push config must pass before it is stored (spec §13.2), as field violations named
 * like the ProtoJSON fields (`url`, `token`, `authentication.scheme`, `authentication.credentials`) under `path`
 * (`configuration.taskPushNotificationConfig` for an inline config). Empty means valid. The sender applies the same
 * rules again before each delivery, as a stored config may predate a stricter policy.
 */
export function pushConfigViolations(config: PushConfigFields, policy: PushAddressPolicy, path = ''): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const add = (field: string, description: string | undefined) => {
    if (description !== undefined) violations.push({ field: path ? `${path}.${field}` : field, description });
  };
  add('url', webhookUrlProblem(config.url, policy));
  if (config.token !== undefined && config.token !== null)
    add('token', headerValueProblem(config.token, PushMessages.tokenInvalid));
  const authentication: unknown = config.authentication;
  if (authentication !== undefined && authentication !== null) {
    if (typeof authentication !== 'object' || Array.isArray(authentication)) {
      add('authentication', PushMessages.notAnObject());
    } else {
      const { scheme, credentials } = authentication as Record<string, unknown>;
      add('authentication.scheme', schemeProblem(scheme));
      if (credentials !== undefined && credentials !== null) {
        add('authentication.credentials', headerValueProblem(credentials, PushMessages.credentialsInvalid));
      }
    }
  }
  return violations;
}

/** Why `url` cannot be a webhook under `policy`, or undefined if it can. */
export function webhookUrlProblem(url: unknown, policy: PushAddressPolicy): string | undefined {
  if (url === undefined || url === null || url === '') return PushMessages.urlRequired();
  if (typeof url !== 'string') return PushMessages.notAString();
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return PushMessages.urlTooLong(MAX_WEBHOOK_URL_LENGTH);
  if (SPACE_OR_CONTROL.test(url)) return PushMessages.urlHasSpaceOrControl();
  if (!URL.canParse(url)) return PushMessages.urlNotAbsolute();
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return PushMessages.urlNotHttp();
  if (parsed.username !== '' || parsed.password !== '') return PushMessages.urlHasUserinfo();
  // `hash` is empty for a bare trailing "#", which the serialized URL still carries: only a fragment can hold a "#".
  if (parsed.href.includes('#')) return PushMessages.urlHasFragment();
  const hostname = parsed.hostname;
  if (isLocalhost(hostname) && !policy.isAllowlistedHost(hostname)) return PushMessages.urlLocalhost();
  // WHATWG has already rewritten 2130706433, 0x7f.1 and 0177.0.0.1 as 127.0.0.1: the parsed host is what gets dialled.
  const literal = stripBrackets(hostname);
  if (isIP(literal) !== 0 && !policy.isAllowedAddress(literal, hostname)) {
    return PushMessages.urlAddressRefused(literal, policy.describeRange(literal));
  }
  // A host name's addresses are known only when it is dialled, where the connector checks the port too.
  if (isIP(literal) !== 0 && !policy.isAllowedPort(literal, portOf(parsed)))
    return PushMessages.urlPortRefused(portOf(parsed), policy.describePorts());
  if (parsed.protocol === 'http:' && !policy.allowsPlainHttp(parsed)) return PushMessages.urlNeedsHttps();
  return undefined;
}

function isLocalhost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost');
}

function schemeProblem(scheme: unknown): string | undefined {
  if (scheme === undefined || scheme === null || scheme === '') return PushMessages.schemeRequired();
  if (typeof scheme !== 'string') return PushMessages.notAString();
  if (scheme.length > MAX_AUTH_SCHEME_LENGTH || !AUTH_SCHEME.test(scheme))
    return PushMessages.schemeInvalid(MAX_AUTH_SCHEME_LENGTH);
  return undefined;
}

function headerValueProblem(value: unknown, invalid: (max: number) => string): string | undefined {
  if (typeof value !== 'string') return PushMessages.notAString();
  return HEADER_VALUE.test(value) ? undefined : invalid(MAX_PUSH_SECRET_LENGTH);
}
