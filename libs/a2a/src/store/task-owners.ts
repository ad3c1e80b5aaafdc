/** One owner's (tenant + owner) tasks in the in-memory store. */
export interface OwnerTasks {
  /** Tasks held. */
  count: number;
  /** Tasks not terminal, oldest first. */
  readonly live: Set<string>;
  /** Terminal tasks held. */
  terminalCount: number;
  /**
   * Terminal task ids, longest-terminal first. It may also hold ids that are no longer terminal here (forgotten, or
   * written again): whoever reads it skips those.
   */
  readonly terminal: IdQueue;
  /** Where {@link TaskOwners.largest} files the owner: `count · 2`, plus 1 while it holds a terminal task. */
  rank: number;
}

/**
 * Who holds how many tasks, for the in-memory store's caps: `limits.maxTasksPerPrincipal` counts one owner's tasks,
 * and a full store evicts from the owner holding the most (one with a terminal task first among equals), so that one
 * caller's flood only ever evicts its own tasks. Owners are filed in buckets by rank: every change moves one owner by
 * a rank or three, so the largest is found in O(1).
 */
export class TaskOwners {
  private readonly owners = new Map<string, OwnerTasks>();
  private readonly byRank = new Map<number, Set<OwnerTasks>>();
  private top = 0;

  /** The owner's tasks; undefined while it holds none. */
  get(key: string): OwnerTasks | undefined {
    return this.owners.get(key);
  }

  /** A task of the owner is stored: live, or terminal from the start. */
  added(key: string, id: string, terminal: boolean): void {
    let owner = this.owners.get(key);
    if (!owner) {
      owner = { count: 0, live: new Set(), terminalCount: 0, terminal: new IdQueue(), rank: 0 };
      this.owners.set(key, owner);
    }
    owner.count++;
    if (terminal) this.addTerminal(owner, id);
    else owner.live.add(id);
    this.rerank(owner);
  }

  /** A live task of the owner became terminal. */
  ended(key: string, id: string): void {
    const owner = this.owners.get(key)!;
    owner.live.delete(id);
    this.addTerminal(owner, id);
    this.rerank(owner);
  }

  /** A terminal task of the owner was written again: live once more. */
  reopened(key: string, id: string): void {
    const owner = this.owners.get(key)!;
    owner.terminalCount--;
    this.forgetTerminal(owner, id);
    owner.live.add(id);
    this.rerank(owner);
  }

  /** A task of the owner is forgotten. */
  removed(key: string, id: string, terminal: boolean): void {
    const owner = this.owners.get(key)!;
    owner.count--;
    if (terminal) {
      owner.terminalCount--;
      this.forgetTerminal(owner, id);
    } else owner.live.delete(id);
    this.rerank(owner);
    if (owner.count === 0) this.owners.delete(key);
  }

  /** The owner's longest-terminal task, given which ids are still terminal here; stale ids ahead of it are dropped. */
  oldestTerminal(owner: OwnerTasks, isTerminal: (id: string) => boolean): string | undefined {
    if (owner.terminalCount === 0) return undefined;
    for (let id = owner.terminal.peek(); id !== undefined; id = owner.terminal.peek()) {
      if (isTerminal(id)) return id;
      owner.terminal.shift();
    }
    return undefined;
  }

  /** The owner holding the most tasks; among equals, one holding a terminal task. */
  largest(): OwnerTasks | undefined {
    return this.byRank.get(this.top)?.values().next().value;
  }

  private addTerminal(owner: OwnerTasks, id: string): void {
    owner.terminalCount++;
    owner.terminal.push(id);
  }

  /** Ids leave the queue at its head, as terminal tasks usually leave (the longest-terminal first); others are skipped later. */
  private forgetTerminal(owner: OwnerTasks, id: string): void {
    if (owner.terminal.peek() === id) owner.terminal.shift();
  }

  private rerank(owner: OwnerTasks): void {
    const rank = owner.count * 2 + (owner.terminalCount > 0 ? 1 : 0);
    if (rank === owner.rank) return;
    const from = this.byRank.get(owner.rank);
    if (from) {
      from.delete(owner);
      if (from.size === 0) this.byRank.delete(owner.rank);
    }
    owner.rank = rank;
    if (rank > 0) {
      const to = this.byRank.get(rank) ?? new Set<OwnerTasks>();
      to.add(owner);
      this.byRank.set(rank, to);
    }
    if (rank > this.top) this.top = rank;
    // A rank moves by at most 3 at a time: the new top is at most that far below.
    while (this.top > 0 && !this.byRank.has(this.top)) this.top--;
  }
}

/** A FIFO of ids: an array read from a moving head, compacted once the head has passed half of it. */
export class IdQueue {
  private items: string[] = [];
  private head = 0;

  push(id: string): void {
    this.items.push(id);
  }

  peek(): string | undefined {
    return this.items[this.head];
  }

  shift(): void {
    this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
