import type { TaskState } from '../protocol/a2a.types.js';
import { ALL_TASK_STATES } from '../task/task-states.js';

/** A terminal task as the log keeps it: everything the store answers and filters with, plus the task's JSON. */
export interface TerminalRecord {
  id: string;
  contextId: string;
  version: number;
  state: TaskState;
  /** `Date.parse` of the status timestamp; NaN when there is none. */
  statusMs: number;
  /** When the task became terminal (Date.now()). */
  terminalAt: number;
  skillId: string;
  tenant: string;
  owner: string;
  json: string;
}

/** What list() needs of a record, read without decoding its JSON. */
export interface RecordSummary {
  state: TaskState;
  statusMs: number;
  terminalAt: number;
  tenant: string;
  owner: string;
}

const SLAB_BYTES = 1 << 20;
/** Records larger than this get a slab of their own. */
const LARGE_RECORD_BYTES = SLAB_BYTES / 4;
// Header: u32 record bytes, u32 version, f64 statusMs, f64 terminalAt, u32 state, u32 skill, u32 scope,
// u32 id bytes, u32 contextId bytes, u32 JSON bytes; then the three strings in UTF-8.
const HEADER_BYTES = 48;

/**
 * Terminal tasks, appended in the order they became terminal, as binary records in 1 MiB slabs outside the JS heap.
 * A position (a small integer: slab number × 1 MiB + offset) is all the store keeps per terminal task, next to the id.
 *
 * Why: kept as objects (or even as one JSON string each), 100,000 small tasks are 100,000s of long-lived heap objects,
 * strewn over the old generation among the dead objects of the requests that made them, and the process's memory ends
 * several times larger than the tasks. Here they weigh what their bytes weigh.
 *
 * The order is also the eviction order: {@link oldest} walks from the first record still wanted, and a slab is
 * released once that walk has left it.
 */
export class TerminalTaskLog {
  /** Slabs from number `firstSlab` on; released ones are undefined until they can be dropped from the front. */
  private readonly slabs: Array<Buffer | undefined> = [];
  private firstSlab = 0;
  /** Bytes used in the last slab, and its size; start equal, so the first append allocates. */
  private used = 0;
  private capacity = 0;
  /** Where the walk of {@link oldest} stands. */
  private headSlab = 0;
  private headOffset = 0;
  /** Bytes of the records from the walk's position on, and of those among them the store has released. */
  private held = 0;
  private released = 0;
  private readonly skills = new Interned<string>();
  private readonly scopes = new Interned<Scope>();

  append(record: TerminalRecord): number {
    const idBytes = Buffer.byteLength(record.id);
    const contextBytes = Buffer.byteLength(record.contextId);
    const jsonBytes = Buffer.byteLength(record.json);
    const size = HEADER_BYTES + idBytes + contextBytes + jsonBytes;
    if (this.used + size > this.capacity) this.startSlab(size > LARGE_RECORD_BYTES ? size : SLAB_BYTES);
    const slab = this.slabs[this.slabs.length - 1]!;
    const offset = this.used;
    this.used += size;
    this.held += size;
    slab.writeUInt32LE(size, offset);
    slab.writeUInt32LE(record.version, offset + 4);
    slab.writeDoubleLE(record.statusMs, offset + 8);
    slab.writeDoubleLE(record.terminalAt, offset + 16);
    slab.writeUInt32LE(ALL_TASK_STATES.indexOf(record.state), offset + 24);
    slab.writeUInt32LE(
      this.skills.indexOf(record.skillId, () => record.skillId),
      offset + 28,
    );
    slab.writeUInt32LE(
      this.scopes.indexOf(`${record.tenant}\u0000${record.owner}`, () => ({
        tenant: record.tenant,
        owner: record.owner,
      })),
      offset + 32,
    );
    slab.writeUInt32LE(idBytes, offset + 36);
    slab.writeUInt32LE(contextBytes, offset + 40);
    slab.writeUInt32LE(jsonBytes, offset + 44);
    let at = offset + HEADER_BYTES;
    at += slab.write(record.id, at, 'utf8');
    at += slab.write(record.contextId, at, 'utf8');
    slab.write(record.json, at, 'utf8');
    return (this.firstSlab + this.slabs.length - 1) * SLAB_BYTES + offset;
  }

  /** Closes the last slab (a zero size marks where its records end) and opens one of `bytes`. */
  private startSlab(bytes: number): void {
    const last = this.slabs[this.slabs.length - 1];
    if (last && this.used + 4 <= this.capacity) last.writeUInt32LE(0, this.used);
    this.slabs.push(Buffer.allocUnsafe(bytes));
    this.used = 0;
    this.capacity = bytes;
  }

  read(position: number): TerminalRecord {
    const { slab, offset } = this.locate(position);
    const summary = this.summarize(slab, offset);
    const idBytes = slab.readUInt32LE(offset + 36);
    const contextBytes = slab.readUInt32LE(offset + 40);
    const jsonBytes = slab.readUInt32LE(offset + 44);
    const idAt = offset + HEADER_BYTES;
    const contextAt = idAt + idBytes;
    const jsonAt = contextAt + contextBytes;
    return {
      ...summary,
      id: slab.toString('utf8', idAt, contextAt),
      contextId: slab.toString('utf8', contextAt, jsonAt),
      version: slab.readUInt32LE(offset + 4),
      skillId: this.skills.at(slab.readUInt32LE(offset + 28)),
      json: slab.toString('utf8', jsonAt, jsonAt + jsonBytes),
    };
  }

  /** What a read of the task needs, without decoding the rest of the record. */
  stored(position: number): { json: string; version: number; skillId: string } {
    const { slab, offset } = this.locate(position);
    const jsonAt = offset + HEADER_BYTES + slab.readUInt32LE(offset + 36) + slab.readUInt32LE(offset + 40);
    return {
      json: slab.toString('utf8', jsonAt, jsonAt + slab.readUInt32LE(offset + 44)),
      version: slab.readUInt32LE(offset + 4),
      skillId: this.skills.at(slab.readUInt32LE(offset + 28)),
    };
  }

  /** The store no longer uses the record at `position`: its bytes go once the walk of {@link oldest} passes it. */
  release(position: number): void {
    const { slab, offset } = this.locate(position);
    this.released += slab.readUInt32LE(offset);
  }

  /**
   * Whether records released out of order (tasks evicted per owner) outweigh the ones still used: slabs are released
   * only once the walk passes every record in them, so the store then moves the oldest used records to the end.
   */
  get wasteful(): boolean {
    return this.released >= SLAB_BYTES && this.released * 2 > this.held;
  }

  version(position: number): number {
    const { slab, offset } = this.locate(position);
    return slab.readUInt32LE(offset + 4);
  }

  /** The fields list() filters and sorts on. */
  summary(position: number): RecordSummary {
    const { slab, offset } = this.locate(position);
    return this.summarize(slab, offset);
  }

  contextIdIs(position: number, contextId: string): boolean {
    const { slab, offset } = this.locate(position);
    const contextAt = offset + HEADER_BYTES + slab.readUInt32LE(offset + 36);
    return slab.toString('utf8', contextAt, contextAt + slab.readUInt32LE(offset + 40)) === contextId;
  }

  /**
   * The oldest record for which `wanted(id, position)` holds (the store's current record of that task), skipping and
   * forgetting older ones for good (the store released them); undefined when there is none. Slabs the walk leaves
   * behind are released.
   */
  oldest(
    wanted: (id: string, position: number) => boolean,
  ): { id: string; position: number; terminalAt: number } | undefined {
    for (;;) {
      const index = this.headSlab - this.firstSlab;
      const slab = this.slabs[index];
      const last = index >= this.slabs.length - 1;
      const end = last ? this.used : (slab?.length ?? 0);
      const offset = this.headOffset;
      const size = slab && offset + 4 <= end ? slab.readUInt32LE(offset) : 0;
      if (size > 0) {
        const idAt = offset + HEADER_BYTES;
        const id = slab!.toString('utf8', idAt, idAt + slab!.readUInt32LE(offset + 36));
        const position = this.headSlab * SLAB_BYTES + offset;
        if (wanted(id, position)) return { id, position, terminalAt: slab!.readDoubleLE(offset + 16) };
        this.headOffset += size;
        this.passed(size);
        continue;
      }
      if (last) return undefined;
      // Nothing in this slab is wanted any more: release it.
      this.slabs[index] = undefined;
      this.headSlab++;
      this.headOffset = 0;
      while (this.slabs.length > 1 && this.slabs[0] === undefined) {
        this.slabs.shift();
        this.firstSlab++;
      }
    }
  }

  /** Moves the walk past the record at `position`, which {@link oldest} just returned and the store has released. */
  skip(position: number): void {
    const { slab, offset } = this.locate(position);
    const size = slab.readUInt32LE(offset);
    this.headOffset = offset + size;
    this.passed(size);
  }

  private passed(size: number): void {
    this.held -= size;
    this.released -= size;
  }

  private locate(position: number): { slab: Buffer; offset: number } {
    const number = Math.floor(position / SLAB_BYTES);
    const slab = this.slabs[number - this.firstSlab];
    if (!slab) throw new Error(`No terminal task record at ${position}`);
    return { slab, offset: position - number * SLAB_BYTES };
  }

  private summarize(slab: Buffer, offset: number): RecordSummary {
    const { tenant, owner } = this.scopes.at(slab.readUInt32LE(offset + 32));
    return {
      state: ALL_TASK_STATES[slab.readUInt32LE(offset + 24)],
      statusMs: slab.readDoubleLE(offset + 8),
      terminalAt: slab.readDoubleLE(offset + 16),
      tenant,
      owner,
    };
  }
}

interface Scope {
  tenant: string;
  owner: string;
}

/** Values stored once and referred to by index (skill ids, scopes: few distinct values, on every record). */
class Interned<T> {
  private readonly values: T[] = [];
  private readonly indexes = new Map<string, number>();

  indexOf(key: string, value: () => T): number {
    let index = this.indexes.get(key);
    if (index === undefined) {
      index = this.values.push(value()) - 1;
      this.indexes.set(key, index);
    }
    return index;
  }

  at(index: number): T {
    return this.values[index];
  }
}
