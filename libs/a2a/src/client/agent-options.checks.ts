import { A2aClientOptionsError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { cardUrlOf } from './agent-card.resolver.js';

/** The card URL of the options (an origin becomes its well-known path); only http and https. */
export function checkedCardUrl(cardUrl: string): string {
  let url: URL;
  try {
    url = new URL(cardUrlOf(cardUrl));
  } catch {
    throw new A2aClientOptionsError(A2aClientMessages.invalidCardUrl(String(cardUrl)));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new A2aClientOptionsError(A2aClientMessages.invalidCardUrl(cardUrl));
  return url.href;
}

export function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new A2aClientOptionsError(A2aClientMessages.invalidOption(name, 'a positive number'));
  return value;
}

export function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new A2aClientOptionsError(A2aClientMessages.invalidOption(name, 'a number ≥ 0'));
  return value;
}
