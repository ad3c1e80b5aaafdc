import { randomUUID } from 'node:crypto';
import type { JsonObject, Message } from '../protocol/a2a.types.js';
import type { A2aOutgoingMessage, A2aSendOptions } from './a2a-call.options.js';

/** SendMessageRequest of `send` and `stream`: a string is one text part; a missing messageId is made once, here. */
export function sendRequestOf(message: string | A2aOutgoingMessage, options: A2aSendOptions): JsonObject {
  const given = typeof message === 'string' ? { parts: [{ text: message }] } : message;
  const full: Message = {
    ...given,
    messageId: given.messageId || randomUUID(),
    role: given.role ?? 'ROLE_USER',
  } as Message;
  return {
    message: full as unknown as JsonObject,
    ...(options.configuration === undefined ? {} : { configuration: options.configuration as unknown as JsonObject }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}
