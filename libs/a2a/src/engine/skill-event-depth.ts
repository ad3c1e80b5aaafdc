import type { Part } from '../protocol/a2a.types.js';
import { tooDeepAt } from '../json/json-depth.js';
import type { AgentContent, SkillEvent } from '../skills/skill-event.js';

/**
 * Where a skill's event holds a free-form value (`metadata`, a part's `data`) nested deeper than `maxDepth`, as a
 * path such as `artifact.parts[0].data[3]`, or undefined. The same bound as at ingress, so whatever the store holds
 * can be serialized, copied and sent on every binding.
 */
export function tooDeepInSkillEvent(event: SkillEvent, maxDepth: number): string | undefined {
  const values: Checked[] = [];
  if (event.kind === 'artifact') {
    values.push(['metadata', event.metadata], ['artifact.metadata', event.artifact.metadata]);
    addParts(values, 'artifact.parts', event.artifact.parts);
  } else if (event.kind === 'status') {
    values.push(['metadata', event.metadata]);
    addContent(values, 'message', event.message);
  } else if (typeof event.message === 'string' || Array.isArray(event.message)) {
    addContent(values, 'message', event.message);
  } else {
    values.push(['message.metadata', event.message.metadata]);
    addParts(values, 'message.parts', event.message.parts);
  }
  for (const [path, value, wrapping = 0] of values) {
    const at = tooDeepAt(value, maxDepth + wrapping);
    if (at !== undefined) return `${path}${at}`;
  }
  return undefined;
}

/** A value to measure, at `path`; `wrapping` levels of it are the protocol's own (a part is one, around its data). */
type Checked = [path: string, value: unknown, wrapping?: number];

function addContent(values: Checked[], path: string, content: AgentContent | undefined): void {
  if (Array.isArray(content)) addParts(values, `${path}.parts`, content);
}

/** Each part as a whole, so a value in any of its fields counts, not just `data` and `metadata`. */
function addParts(values: Checked[], path: string, parts: readonly Part[] | undefined): void {
  if (!Array.isArray(parts)) return;
  parts.forEach((part, index) => values.push([`${path}[${index}]`, part, 1]));
}
