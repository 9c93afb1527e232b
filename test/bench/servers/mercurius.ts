/**
 * Baseline of benchmark 1: mercurius + graphql-jit over the same SDL subset (transfer(id) with its events),
 * with the same Prisma queries (dist's client, findUnique + the service's events DataLoader), the same data,
 * the same bearer-token verification (dist's AuthService, ES256) and the same visibility rule.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import Fastify from 'fastify';
import mercurius, { type MercuriusOptions } from 'mercurius';
import pino from 'pino';
import { fromDist, serveCommands } from '../rpc';
import { seedTransfers } from '../seed';
import type * as DatabaseModule from '../../../src/db/database';
import type * as AuthModule from '../../../src/auth/auth.service';
import type * as ConfigModule from '../../../src/config';
import type * as ViewModule from '../../../src/modules/transfer/transfer.view';
import type * as LoadersModule from '../../../src/modules/transfer/transfer.loaders';
import type * as ScalarsModule from '../../../src/graphql/scalars';
import type * as ClockModule from '../../../src/shared/clock';
import type * as RelayModule from '../../../src/graphql/relay';

const req = fromDist;
const { createDatabase } = req<typeof DatabaseModule>('db/database.js');
const { AuthService } = req<typeof AuthModule>('auth/auth.service.js');
const { loadConfig } = req<typeof ConfigModule>('config.js');
const { toTransfer } = req<typeof ViewModule>('modules/transfer/transfer.view.js');
const { transferLoaders } = req<typeof LoadersModule>('modules/transfer/transfer.loaders.js');
const { DecimalScalar, DateTimeScalar } = req<typeof ScalarsModule>('graphql/scalars.js');
const { systemClock } = req<typeof ClockModule>('shared/clock.js');
const { pageSize, seqCursor, decodeSeq } = req<typeof RelayModule>('graphql/relay.js');

const SDL = /* GraphQL */ `
  scalar Decimal
  scalar DateTime
  enum TransferStatus {
    PENDING
    ACTION_REQUIRED
    AUTHORIZED
    CAPTURED
    PAYOUT_PENDING
    COMPLETED
    REJECTED
    DECLINED
    VOIDED
    EXPIRED
    FAILED
  }
  enum NextActionType {
    THREE_DS_CHALLENGE
  }
  type Money {
    amount: Decimal!
    currency: String!
  }
  type NextAction {
    type: NextActionType!
    redirectUrl: String
  }
  type Failure {
    code: String!
    message: String!
  }
  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
  type TransferEventNode {
    seq: Int!
    fromStatus: TransferStatus
    toStatus: TransferStatus!
    cause: String!
    actor: String
    upstreamRef: String
    action: String
    at: DateTime!
  }
  type TransferEventEdge {
    cursor: String!
    node: TransferEventNode!
  }
  type TransferEventConnection {
    edges: [TransferEventEdge!]!
    pageInfo: PageInfo!
  }
  type Transfer {
    id: ID!
    status: TransferStatus!
    version: Int!
    sendAmount: Money!
    receiveAmount: Money!
    rate: Decimal!
    capturedAmount: Money
    nextAction: NextAction
    failure: Failure
    ownerId: ID!
    complianceStatus: String
    platformStatus: String
    events(first: Int, after: String): TransferEventConnection!
    createdAt: DateTime!
    updatedAt: DateTime!
  }
  type Query {
    transfer(id: ID!): Transfer
  }
`;

let close: () => Promise<void> = async () => undefined;

serveCommands(
  {
    async start(args: { env: Record<string, string>; seed?: { count: number; events: number } }) {
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'warn', ...args.env });
      mkdirSync(config.dataDir, { recursive: true });
      const db = await createDatabase(config.database, pino({ level: 'warn' }));
      await db.migrate();
      if (args.seed) await seedTransfers(db.prisma, args.seed.count, args.seed.events);
      const auth = await AuthService.create(config.auth, config.dataDir, systemClock);
      const prisma = db.prisma;
      const loadersFor = transferLoaders(prisma);
      type Ctx = { caller: { userId: string; role: string } | null };
      const app = Fastify({ logger: false });
      const options = {
        schema: SDL,
        jit: 1,
        context: async (request: { headers: { authorization?: string } }): Promise<Ctx> => ({
          caller: await auth.fromAuthorizationHeader(request.headers.authorization),
        }),
        resolvers: {
          Decimal: DecimalScalar,
          DateTime: DateTimeScalar,
          Query: {
            transfer: async (_: unknown, { id }: { id: string }, ctx: Ctx) => {
              if (!ctx.caller) throw new Error('UNAUTHENTICATED');
              const t = /^[0-9a-f-]{36}$/i.test(id) ? await prisma.transfer.findUnique({ where: { id } }) : null;
              const staff = ctx.caller.role === 'backoffice' || ctx.caller.role === 'admin';
              if (!t || (!staff && t.ownerId !== ctx.caller.userId)) throw new Error('NOT_FOUND');
              return toTransfer(t);
            },
          },
          Transfer: {
            events: async (t: { id: string }, page: { first?: number; after?: string }, ctx: Ctx) => {
              const first = pageSize(page.first, 50);
              const afterSeq = decodeSeq(page.after);
              const p = await loadersFor(ctx).events.load({ transferId: t.id, afterSeq, first });
              const edges = p.events.map((e) => ({
                cursor: seqCursor(e.seq),
                node: {
                  seq: e.seq,
                  fromStatus: e.fromStatus,
                  toStatus: e.toStatus,
                  cause: e.cause,
                  // as ours shows it: a customer sees you / support / system
                  actor:
                    ctx.caller!.role !== 'customer' || e.actor === null
                      ? e.actor
                      : e.cause !== 'mutation'
                        ? 'system'
                        : e.actor === ctx.caller!.userId
                          ? 'you'
                          : 'support',
                  upstreamRef: e.upstreamRef,
                  action:
                    typeof (e.detail as { action?: unknown } | null)?.action === 'string' ? (e.detail as { action: string }).action : null,
                  at: e.at,
                },
              }));
              return {
                edges,
                pageInfo: {
                  hasNextPage: p.hasNextPage,
                  hasPreviousPage: afterSeq > 0,
                  startCursor: edges[0]?.cursor ?? null,
                  endCursor: edges.at(-1)?.cursor ?? null,
                },
              };
            },
          },
        },
      };
      await app.register(mercurius, options as unknown as MercuriusOptions);
      await app.listen({ port: 0, host: '127.0.0.1' });
      close = async () => {
        await app.close();
        await db.close();
      };
      return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, dbKind: db.kind };
    },
  },
  () => close(),
);
