/**
 * Webhook inbox processor throughput, on its own (no HTTP, no saga):
 *
 *   node -r ./test/bench/register.cjs test/bench/webhook-processor.ts [events=2000] [perStream=1,5]
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./test/bench/register.cjs test/bench/webhook-processor.ts
 *
 * For each stream shape (1 = every event its own stream, like one transaction each; 5 = five events per
 * stream), stores `events` document events in the inbox with the processor stopped, then starts one
 * processor (default options) and times until every event is processed. Prints events/s and the SQL
 * statements per event (all statements Prisma sent while processing, applying included: one upsert per
 * document event).
 */
import pino from 'pino';
import { systemClock } from '../../src/shared/clock';
import { WebhookInbox } from '../../src/modules/webhook/webhook.inbox.repository';
import { PlatformStateStore } from '../../src/modules/webhook/webhook.platform-state.repository';
import { WebhookProcessor } from '../../src/modules/webhook/webhook.processor';
import { countQueries, createTestDatabase, usingPostgres } from '../helpers/db';

const total = Number(process.argv[2] ?? 2000);
const shapes = (process.argv[3] ?? '1,5').split(',').map(Number);

async function run(perStream: number) {
  const db = await createTestDatabase();
  try {
    const inbox = new WebhookInbox(db.prisma, db.sql);
    const streams = Math.ceil(total / perStream);
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let s = 0; s < streams; s++)
      for (let k = 0; k < perStream; k++) {
        const payload = {
          event: 'DocumentUpdatedEvents',
          id: `doc-${s}`,
          entityId: `person-${s}`,
          entityType: 'Participant',
          documentType: 'PASSPORT',
          verificationStatus: k % 2 ? 'PENDING' : 'VERIFIED',
          occurredAt: new Date(base + k * 1000).toISOString(),
          tenantId: 'sandbox-tenant',
          version: 1,
        };
        await inbox.store({ eventName: payload.event, payload, signed: true, receivedAt: new Date() });
      }
    const counter = countQueries(db);
    const processor = new WebhookProcessor(db.sql, null, new PlatformStateStore(db.prisma), systemClock, pino({ level: 'silent' }), {
      pollIntervalMs: 50,
      tenantId: 'sandbox-tenant',
    });
    const t0 = process.hrtime.bigint();
    processor.start();
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const pending = await db.prisma.webhookInbox.count({ where: { processedAt: null } });
      if (pending === 0) break;
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    await processor.stop();
    const events = counter.events.filter((e) => !e.sql.includes('COUNT(')); // not the bench's own polling
    const statements = events.length;
    if (process.env.BENCH_VERBOSE) {
      const byKind = new Map<string, { n: number; ms: number }>();
      for (const e of events) {
        const kind = e.sql.replace(/\s+/g, ' ').trim().slice(0, 60);
        const k = byKind.get(kind) ?? { n: 0, ms: 0 };
        k.n++;
        k.ms += e.durationMs;
        byKind.set(kind, k);
      }
      for (const [kind, k] of [...byKind].sort((a, b) => b[1].ms - a[1].ms))
        console.log(`  ${String(k.n).padStart(6)} × ${(k.ms / k.n).toFixed(2)} ms  ${kind}`);
    }
    counter.dispose();
    return {
      perStream,
      events: streams * perStream,
      seconds,
      eventsPerS: (streams * perStream) / seconds,
      statementsPerEvent: statements / (streams * perStream),
    };
  } finally {
    await db.close();
  }
}

void (async () => {
  console.log(`database: ${usingPostgres() ? 'PostgreSQL' : 'PGlite'}`);
  for (const s of shapes) {
    const r = await run(s);
    console.log(
      `${r.events} events, ${r.perStream}/stream: ${r.seconds.toFixed(2)} s, ${Math.round(r.eventsPerS)} ev/s, ${r.statementsPerEvent.toFixed(2)} statements/event`,
    );
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
