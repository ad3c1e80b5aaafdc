import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';

/**
 * A skill `trickle` that streams `chunks` artifact chunks of `bytes` characters, 50 per event-loop turn: a producer that
 * keeps going while a client does not read (the backpressure suites).
 */
export function trickleSkill(chunks: number, bytes: number) {
  @AgentSkill({ id: 'trickle', name: 'Trickle', description: 'Streams many chunks over time', tags: ['test'] })
  class TrickleSkill extends A2aSkillHandler {
    async *handle(): AsyncIterable<SkillEvent> {
      yield working();
      for (let i = 0; i < chunks; i++) {
        if (i % 50 === 0) await nextTurn();
        yield artifact(`${i}:`.padEnd(bytes, 'x'), {
          artifactId: 'chunks',
          append: i > 0,
          lastChunk: i === chunks - 1,
        });
      }
      yield complete();
    }
  }
  return TrickleSkill;
}
