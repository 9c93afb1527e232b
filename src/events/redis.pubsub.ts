import Redis from 'ioredis';
import type { Logger } from '../shared/logger';
import { TopicRegistry, createQueueIterator, type PubSub } from './pubsub';
import { backoffDelay } from '../shared/backoff';

/**
 * Redis pub/sub: one connection publishes, one subscribes to the topics that have local listeners
 * (SUBSCRIBE on the first, UNSUBSCRIBE after the last), and messages fan out locally.
 * ioredis reconnects by itself and re-subscribes; `healthy()` is false meanwhile.
 */
export class RedisPubSub implements PubSub {
  readonly kind = 'redis' as const;
  private readonly registry = new TopicRegistry();
  private readonly ends = new Set<() => void>();
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly prefix: string;

  constructor(
    url: string,
    private readonly logger: Logger,
    opts: { prefix?: string } = {},
  ) {
    this.prefix = opts.prefix ?? 'remittance-bff:';
    const common = {
      lazyConnect: false,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      retryStrategy: (times: number) => backoffDelay({ baseMs: 100, maxMs: 5_000, attempt: times, maxExponent: 6 }),
    };
    this.pub = new Redis(url, { ...common, connectionName: 'remittance-bff-pub' });
    this.sub = new Redis(url, { ...common, connectionName: 'remittance-bff-sub' });
    for (const [name, c] of [
      ['pub', this.pub],
      ['sub', this.sub],
    ] as const) {
      c.on('error', (err: Error) => this.logger.warn({ err: { message: err.message }, connection: name }, 'redis error'));
    }
    this.sub.on('message', (channel: string, message: string) => {
      if (!channel.startsWith(this.prefix)) return;
      let payload: unknown;
      try {
        payload = JSON.parse(message);
      } catch {
        this.logger.warn({ channel }, 'dropped a malformed pub/sub message');
        return;
      }
      this.registry.deliver(channel.slice(this.prefix.length), payload);
    });
  }

  /** Resolves once both connections are up (or rejects after `timeoutMs`). */
  async ready(timeoutMs = 5_000): Promise<void> {
    const wait = (c: Redis) =>
      c.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const t = setTimeout(() => reject(new Error('Redis did not become ready in time')), timeoutMs);
            c.once('ready', () => {
              clearTimeout(t);
              resolve();
            });
          });
    await Promise.all([wait(this.pub), wait(this.sub)]);
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    await this.pub.publish(this.prefix + topic, JSON.stringify(payload));
  }

  subscribe<T>(topic: string): AsyncIterableIterator<T> {
    const q = createQueueIterator<T>(() => {
      this.ends.delete(q.end);
      if (this.registry.remove(topic, listener).last) this.sub.unsubscribe(this.prefix + topic).catch(() => undefined);
    });
    const listener = (p: unknown) => q.push(p as T);
    if (this.registry.add(topic, listener).first)
      this.sub
        .subscribe(this.prefix + topic)
        .catch((err: Error) => this.logger.warn({ err: { message: err.message }, topic }, 'redis subscribe failed'));
    this.ends.add(q.end);
    return q.iterator;
  }

  /** Resolves when Redis has acknowledged the SUBSCRIBE for every local topic (tests use it to avoid races). */
  async flushSubscriptions(): Promise<void> {
    const topics = this.registry.topicNames();
    if (topics.length) await this.sub.subscribe(...topics.map((t) => this.prefix + t));
  }

  subscriptionCount(): number {
    return this.registry.count();
  }
  healthy(): boolean {
    return this.pub.status === 'ready' && this.sub.status === 'ready';
  }
  async close(): Promise<void> {
    for (const end of [...this.ends]) end();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
