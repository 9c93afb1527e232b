/**
 * Pub/sub for subscriptions: one interface, an in-process implementation (embedded default) and a Redis
 * one (REDIS_URL) so an event published by one instance reaches subscribers connected to any other.
 * Payloads are JSON-serialisable values. Delivery is at-most-once: consumers that must not miss anything
 * (transfer updates) resume from the database by version, pub/sub only wakes them up.
 */
export interface PubSub {
  readonly kind: 'memory' | 'redis';
  publish(topic: string, payload: unknown): Promise<void>;
  /** An async iterator of the topic's messages; `return()` (or breaking a for-await) unsubscribes. */
  subscribe<T = unknown>(topic: string): AsyncIterableIterator<T>;
  /** Local subscriptions currently open (for metrics and tests). */
  subscriptionCount(): number;
  /** False while the backend (Redis) is unreachable. */
  healthy(): boolean;
  close(): Promise<void>;
}

const MAX_QUEUE = 10_000;

/** A push-fed async iterator with a bounded queue (oldest dropped on overflow). */
export function createQueueIterator<T>(onClose: () => void): {
  iterator: AsyncIterableIterator<T>;
  push: (value: T) => void;
  end: () => void;
} {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let done = false;
  const finish = (): IteratorResult<T> => {
    if (!done) {
      done = true;
      onClose();
    }
    if (waiting) {
      const w = waiting;
      waiting = null;
      w({ value: undefined, done: true });
    }
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift() as T, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      queue.length = 0;
      return Promise.resolve(finish());
    },
    throw(e?: unknown) {
      finish();
      return Promise.reject(e);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return {
    iterator,
    push(value) {
      if (done) return;
      if (waiting) {
        const w = waiting;
        waiting = null;
        w({ value, done: false });
      } else {
        if (queue.length >= MAX_QUEUE) queue.shift();
        queue.push(value);
      }
    },
    end: () => void finish(),
  };
}

/** Local fan-out shared by both implementations. */
export class TopicRegistry {
  private readonly topics = new Map<string, Set<(payload: unknown) => void>>();

  add(topic: string, listener: (payload: unknown) => void): { first: boolean } {
    let set = this.topics.get(topic);
    const first = !set;
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(listener);
    return { first };
  }
  remove(topic: string, listener: (payload: unknown) => void): { last: boolean } {
    const set = this.topics.get(topic);
    if (!set) return { last: false };
    set.delete(listener);
    if (set.size === 0) {
      this.topics.delete(topic);
      return { last: true };
    }
    return { last: false };
  }
  deliver(topic: string, payload: unknown): void {
    const set = this.topics.get(topic);
    if (set) for (const l of [...set]) l(payload);
  }
  count(): number {
    let n = 0;
    for (const s of this.topics.values()) n += s.size;
    return n;
  }
  topicNames(): string[] {
    return [...this.topics.keys()];
  }
}

export class MemoryPubSub implements PubSub {
  readonly kind = 'memory' as const;
  private readonly registry = new TopicRegistry();
  private readonly ends = new Set<() => void>();

  async publish(topic: string, payload: unknown): Promise<void> {
    // Same isolation as Redis: subscribers get their own copy.
    this.registry.deliver(topic, structuredClone(payload));
  }
  subscribe<T>(topic: string): AsyncIterableIterator<T> {
    const q = createQueueIterator<T>(() => {
      this.registry.remove(topic, listener);
      this.ends.delete(q.end);
    });
    const listener = (p: unknown) => q.push(p as T);
    this.registry.add(topic, listener);
    this.ends.add(q.end);
    return q.iterator;
  }
  subscriptionCount(): number {
    return this.registry.count();
  }
  healthy(): boolean {
    return true;
  }
  async close(): Promise<void> {
    for (const end of [...this.ends]) end();
  }
}
