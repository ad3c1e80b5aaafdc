import { firstValueFrom, Observable, of, toArray } from 'rxjs';
import { skillEvents } from '../../../libs/a2a/src/engine/skill-result.js';
import type { SkillResult } from '../../../libs/a2a/src/skills/a2a-skill.handler.js';
import type { SkillEvent } from '../../../libs/a2a/src/skills/skill-event.js';
import { artifact, complete, working } from '../../../libs/a2a/src/skills/skill-events.helpers.js';

const events: SkillEvent[] = [working('on it'), artifact('result', { artifactId: 'a-1' }), complete()];

const collect = (run: () => SkillResult) => firstValueFrom(skillEvents(run).pipe(toArray()));

describe('skillEvents', () => {
  it('passes an Observable through', async () => {
    expect(await collect(() => of(...events))).toEqual(events);
  });

  it('reads an async generator', async () => {
    async function* generate() {
      for (const event of events) {
        await Promise.resolve();
        yield event;
      }
    }
    expect(await collect(() => generate())).toEqual(events);
  });

  it('reads a sync iterable (array or generator)', async () => {
    expect(await collect(() => events)).toEqual(events);
    function* generate() {
      yield* events;
    }
    expect(await collect(() => generate())).toEqual(events);
  });

  it('reads a promise of one event', async () => {
    expect(await collect(async () => complete('done'))).toEqual([complete('done')]);
  });

  it('reads a promise of several events', async () => {
    expect(await collect(async () => events)).toEqual(events);
  });

  it('reads a promise of nothing as no events', async () => {
    expect(await collect(async () => undefined)).toEqual([]);
  });

  it('turns a synchronous throw into an error notification', async () => {
    const boom = new Error('boom');
    const stream = skillEvents(() => {
      throw boom;
    });
    await expect(firstValueFrom(stream)).rejects.toBe(boom);
  });

  it('turns a rejected promise and an erroring stream into error notifications', async () => {
    const boom = new Error('boom');
    await expect(collect(() => Promise.reject(boom))).rejects.toBe(boom);
    await expect(collect(() => new Observable<SkillEvent>((s) => s.error(boom)))).rejects.toBe(boom);
  });

  it('does not call the skill until subscribed', () => {
    let calls = 0;
    const stream = skillEvents(() => {
      calls++;
      return events;
    });
    expect(calls).toBe(0);
    stream.subscribe().unsubscribe();
    expect(calls).toBe(1);
  });
});
