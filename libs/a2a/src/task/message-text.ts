import type { Message } from '../protocol/a2a.types.js';

/** Text of all the message's text parts, joined by newlines (SkillContext.text). */
export function textOf(message: Message): string {
  let text: string | undefined;
  for (const part of message.parts) {
    if (part.text !== undefined) text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}
