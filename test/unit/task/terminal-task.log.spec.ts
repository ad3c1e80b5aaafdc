import { TerminalTaskLog, type TerminalRecord } from '../../../libs/a2a/src/store/terminal-task.log.js';

const record = (id: string, json = `{"id":"${id}"}`, extra: Partial<TerminalRecord> = {}): TerminalRecord => ({
  id,
  contextId: `ctx-${id}`,
  version: 3,
  state: 'TASK_STATE_COMPLETED',
  statusMs: Date.parse('2026-01-01T00:00:00.000Z'),
  terminalAt: 1_000,
  skillId: 'skill',
  tenant: 'acme',
  owner: 'alice',
  json,
  ...extra,
});

describe('TerminalTaskLog', () => {
  it('reads back what it stored, UTF-8 and all', () => {
    const log = new TerminalTaskLog();
    const stored = record('t-é', '{"text":"héllo ✓ 🚀"}', {
      statusMs: Number.NaN,
      state: 'TASK_STATE_REJECTED',
      tenant: '',
      owner: 'bob',
    });
    const position = log.append(stored);
    expect(log.read(position)).toEqual(stored);
    expect(log.version(position)).toBe(3);
    expect(log.summary(position)).toEqual({
      state: 'TASK_STATE_REJECTED',
      statusMs: Number.NaN,
      terminalAt: 1_000,
      tenant: '',
      owner: 'bob',
    });
    expect(log.contextIdIs(position, 'ctx-t-é')).toBe(true);
    expect(log.contextIdIs(position, 'ctx-other')).toBe(false);
  });

  it('spreads records over slabs, a large one in a slab of its own, and walks them oldest first', () => {
    const log = new TerminalTaskLog();
    const filler = 'x'.repeat(100_000);
    const big = 'y'.repeat(2_000_000);
    const ids = Array.from({ length: 25 }, (_, i) => `t-${i}`);
    const positions = new Map<string, number>();
    for (const id of ids) {
      positions.set(id, log.append(record(id, id === 't-7' ? `"${big}"` : `"${filler}"`)));
    }
    for (const id of ids) expect(log.read(positions.get(id)!).id).toBe(id);
    expect(log.read(positions.get('t-7')!).json).toHaveLength(big.length + 2);

    const walked: string[] = [];
    const wanted = (id: string, position: number) => positions.get(id) === position;
    for (let oldest = log.oldest(wanted); oldest; oldest = log.oldest(wanted)) {
      walked.push(oldest.id);
      positions.delete(oldest.id);
      log.skip(oldest.position);
    }
    expect(walked).toEqual(ids);
  });

  it('skips records that are no longer wanted, and stops at the first one that is', () => {
    const log = new TerminalTaskLog();
    const current = new Map<string, number>();
    for (const id of ['a', 'b', 'c']) current.set(id, log.append(record(id)));
    // b was rewritten: its first record is stale.
    current.set('b', log.append(record('b')));
    current.delete('a');
    const wanted = (id: string, position: number) => current.get(id) === position;
    expect(log.oldest(wanted)?.id).toBe('c');
    // Not dropped, so asked again it is the same one.
    expect(log.oldest(wanted)?.id).toBe('c');
    log.skip(current.get('c')!);
    current.delete('c');
    expect(log.oldest(wanted)).toMatchObject({ id: 'b', position: current.get('b') });
  });

  it('releases a slab once the walk has left it, and keeps appending after', () => {
    const log = new TerminalTaskLog();
    const filler = `"${'x'.repeat(200_000)}"`;
    const current = new Map<string, number>();
    for (let i = 0; i < 12; i++) current.set(`t-${i}`, log.append(record(`t-${i}`, filler)));
    const wanted = (id: string, position: number) => current.get(id) === position;
    for (let i = 0; i < 10; i++) {
      const oldest = log.oldest(wanted)!;
      current.delete(oldest.id);
      log.skip(oldest.position);
    }
    // Records of released slabs are gone for good.
    expect(() => log.read(0)).toThrow();
    current.set('t-12', log.append(record('t-12', filler)));
    expect([...current.keys()].map((id) => log.read(current.get(id)!).id)).toEqual(['t-10', 't-11', 't-12']);
  });
});
