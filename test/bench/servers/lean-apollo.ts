/**
 * Baseline of benchmarks 1 and 2: the floor of the mandated stack. Apollo Server 5 on Fastify
 * (@as-integrations/fastify) + a TypeGraphQL schema of the service's own resolver classes (dist's TransferResolver
 * and DirectoryResolver, so the same resolvers and GraphQL types) + graphql-jit through Apollo's gateway hook, and
 * the same data access, with nothing else: no query limits, rate limits, metrics, tracing hooks, request context,
 * argument validation or response shape checks.
 *
 * - 1: `transfer(id)` reads the row with the same Prisma `findUnique` and the same visibility rule; `events` is the
 *   resolver's own (the service's events DataLoader).
 * - 2: `banks` is DirectoryResolver → DirectoryService (dist) over a gateway stand-in making the bare route's undici
 *   call (`Pool.request`, bearer token fetched once, `body.json()`): no retry budget, timers, metrics or zod.
 *
 * Like the mercurius baseline, the context verifies the bearer token with dist's AuthService (token cache on):
 * every production caller is authenticated, and the floor includes that check.
 */
import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import Fastify from 'fastify';
import { ApolloServer, type ApolloServerOptionsWithGateway } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import { buildSchema, type NonEmptyArray } from 'type-graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { Pool } from 'undici';
import pino from 'pino';
import { fromDist, serveCommands } from '../rpc';
import { seedTransfers } from '../seed';
import type * as AppModule from '../../../src/app';
import type * as DatabaseModule from '../../../src/db/database';
import type * as AuthModule from '../../../src/auth/auth.service';
import type * as ConfigModule from '../../../src/config';
import type * as ClockModule from '../../../src/shared/clock';
import type * as ErrorsModule from '../../../src/shared/errors';
import type * as LoadersModule from '../../../src/modules/transfer/transfer.loaders';
import type * as TransferResolverModule from '../../../src/modules/transfer/transfer.resolver';
import type * as FailureResolverModule from '../../../src/modules/transfer/transfer.failure.resolver';
import type * as DirectoryResolverModule from '../../../src/modules/directory/directory.resolver';
import type * as DirectoryServiceModule from '../../../src/modules/directory/directory.service';
import type * as ScalarsModule from '../../../src/graphql/scalars';
import type * as MoneyTypesModule from '../../../src/graphql/money.types';
import type { Caller } from '../../../src/auth/auth.types';

const req = fromDist;
const { createDatabase } = req<typeof DatabaseModule>('db/database.js');
const { AuthService } = req<typeof AuthModule>('auth/auth.service.js');
const { loadConfig } = req<typeof ConfigModule>('config.js');
const { systemClock } = req<typeof ClockModule>('shared/clock.js');
const { notFound } = req<typeof ErrorsModule>('shared/errors.js');
const { TransferResolver } = req<typeof TransferResolverModule>('modules/transfer/transfer.resolver.js');
const { transferLoaders } = req<typeof LoadersModule>('modules/transfer/transfer.loaders.js');
const { FailureResolver } = req<typeof FailureResolverModule>('modules/transfer/transfer.failure.resolver.js');
const { DirectoryResolver, AliasAccountResolver } = req<typeof DirectoryResolverModule>('modules/directory/directory.resolver.js');
const { DirectoryService } = req<typeof DirectoryServiceModule>('modules/directory/directory.service.js');
const { DateTimeScalar } = req<typeof ScalarsModule>('graphql/scalars.js');
const { Money } = req<typeof MoneyTypesModule>('graphql/money.types.js');

type Ctx = { caller: Caller | null };
type GatewayInterface = ApolloServerOptionsWithGateway<Ctx>['gateway'];

/** graphql-jit behind Apollo's gateway hook, one compiled query per document hash and operation name. */
function jitGateway(schema: import('graphql').GraphQLSchema): GatewayInterface {
  const compiled = new Map<string, CompiledQuery>();
  let listener: Parameters<GatewayInterface['onSchemaLoadOrUpdate']>[0] | null = null;
  return {
    onSchemaLoadOrUpdate(l) {
      listener = l;
      return () => (listener = null);
    },
    async load() {
      listener?.({ apiSchema: schema, coreSupergraphSdl: '' });
      return {
        executor: async (rc) => {
          const key = `${rc.queryHash}\0${rc.request.operationName ?? ''}`;
          let q = compiled.get(key);
          if (!q) {
            const c = compileQuery(schema, rc.document, rc.request.operationName ?? undefined, { disablingCapturingStackErrors: true });
            if (!isCompiledQuery(c)) return c;
            compiled.set(key, (q = c));
          }
          return q.query(undefined, rc.context, rc.request.variables);
        },
      };
    },
    async stop() {
      listener = null;
    },
  };
}

let close: () => Promise<void> = async () => undefined;

serveCommands(
  {
    async start(args: {
      env: Record<string, string>;
      seed?: { count: number; events: number };
      gatewayUrl?: string;
      upstreamEnv?: Record<string, string>;
    }) {
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'warn', ...args.env });
      mkdirSync(config.dataDir, { recursive: true });
      const db = await createDatabase(config.database, pino({ level: 'warn' }));
      await db.migrate();
      if (args.seed) await seedTransfers(db.prisma, args.seed.count, args.seed.events);
      const auth = await AuthService.create(config.auth, config.dataDir, systemClock);
      const prisma = db.prisma;

      // 1: the service's transfer read (TransferService.getVisible: findUnique, owner or staff)
      const transfers = {
        async getVisible(caller: Caller, id: string) {
          const t = /^[0-9a-f-]{36}$/i.test(id) ? await prisma.transfer.findUnique({ where: { id } }) : null;
          if (!t || (caller.role === 'customer' && t.ownerId !== caller.userId)) throw notFound('Transfer');
          return t;
        },
      };
      // 2: the bare route's undici call in place of the gateway client
      let pool: Pool | null = null;
      let gateway: { listBanks: (q: { countryCode: string; page?: number; resultsPerPage?: number }) => Promise<unknown> } = {
        listBanks: async () => {
          throw new Error('lean baseline started without gatewayUrl');
        },
      };
      if (args.gatewayUrl) {
        const base = new URL(args.gatewayUrl);
        const prefix = base.pathname.replace(/\/$/, '');
        const p = (pool = new Pool(base.origin, { connections: Number(config.upstream.maxConnections) }));
        const tokenRes = await p.request({
          method: 'POST',
          path: `${prefix}/oauth/token`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId: config.gateway.clientId, secretID: config.gateway.clientSecret }),
        });
        const { access_token: token } = (await tokenRes.body.json()) as { access_token: string };
        gateway = {
          async listBanks(q) {
            const r = await p.request({
              method: 'GET',
              path: `${prefix}/bank/list?countryCode=${encodeURIComponent(q.countryCode)}&page=${q.page ?? 0}&resultsPerPage=${q.resultsPerPage ?? 20}`,
              headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
            });
            const body = await r.body.json();
            if (r.statusCode !== 200) throw new Error(`gateway answered ${r.statusCode}`);
            return body;
          },
        };
      }
      const directory = new DirectoryService(gateway as never, systemClock, { bankTtlMs: 0 });
      const instances = new Map<Function, object>([
        [
          TransferResolver,
          new TransferResolver(transfers as never, transferLoaders(prisma), {
            name: 'bench',
            email: null,
            phone: null,
            url: null,
          }),
        ],
        [DirectoryResolver, new DirectoryResolver(directory)],
        [AliasAccountResolver, new AliasAccountResolver(directory)],
        [FailureResolver, new FailureResolver()],
      ]);
      const schema = await buildSchema({
        resolvers: [TransferResolver, FailureResolver, DirectoryResolver, AliasAccountResolver] as unknown as NonEmptyArray<Function>,
        orphanedTypes: [Money],
        scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
        validate: false,
        authChecker: ({ context }: { context: Ctx }) => context.caller !== null,
        container: { get: (cls: Function) => instances.get(cls) },
        pubSub: { publish: () => undefined, subscribe: () => (async function* () {})() },
      });

      const apollo = new ApolloServer<Ctx>({
        gateway: jitGateway(schema),
        csrfPrevention: false,
        stopOnTerminationSignals: false,
        plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
      });
      await apollo.start();
      const app = Fastify({ logger: false });
      app.route({
        url: '/graphql',
        method: ['GET', 'POST', 'OPTIONS'],
        handler: fastifyApolloHandler(apollo, {
          context: async (request) => ({ caller: await auth.fromAuthorizationHeader(request.headers.authorization) }),
        }),
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      // BENCH_LEAN_BALLAST=1: the whole service built in this process too, never started (no listener, no background
      // work) — lean then runs in a process of ours' size: what the process alone, not the request's path, costs
      const ballast =
        process.env.BENCH_LEAN_BALLAST === '1'
          ? await req<typeof AppModule>('app.js').createApp(
              loadConfig({
                NODE_ENV: 'test',
                HOST: '127.0.0.1',
                PORT: '0',
                SANDBOX_PORT: '0',
                LOG_LEVEL: 'warn',
                ...args.env,
                ...args.upstreamEnv, // the upstreams ours is given (no built-in sandbox in this process)
              }),
            )
          : null;
      close = async () => {
        await ballast?.close();
        await app.close();
        await apollo.stop();
        await pool?.close();
        await db.close();
      };
      return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, dbKind: db.kind };
    },
  },
  () => close(),
);
