/**
 * Every module of the service, in creation order: a module may use what the modules before it provide (see
 * Provided in module.ts). The schema is built from these modules' resolver classes, the composition root creates
 * them in this order, starts them in this order and closes them in reverse.
 */
import type { GraphQLSchema } from 'graphql';
import type { PubSub } from '../events/pubsub';
import { buildGraphQLSchema, type ResolverInstances } from '../graphql/schema';
import type { ModuleDefinition } from './module';
import { adminModule } from './admin/admin.module';
import { checksModule } from './checks/checks.module';
import { directoryModule } from './directory/directory.module';
import { fxModule } from './fx/fx.module';
import { fxV1Module } from './fxv1/fxv1.module';
import { kycModule } from './kyc/kyc.module';
import { legacyCardModule } from './legacy-card/legacy-card.module';
import { noticesModule } from './notice/notice.module';
import { platformModule } from './platform/platform.module';
import { recipientsModule } from './recipient/recipient.module';
import { transfersModule } from './transfer/transfer.module';
import { verificationModule } from './verification/verification.module';
import { viewerModule } from './viewer/viewer.module';
import { walletsModule } from './wallet/wallet.module';
import { webhooksModule } from './webhook/webhook.module';

export const MODULES: readonly ModuleDefinition[] = [
  viewerModule,
  noticesModule,
  kycModule, // provides senders
  checksModule, // needs senders; provides credentials
  legacyCardModule, // needs credentials
  fxModule,
  fxV1Module,
  directoryModule, // provides aliases
  recipientsModule, // needs aliases; provides recipients
  transfersModule, // needs credentials, recipients; provides transfers
  webhooksModule, // needs transfers (the sink of platform events)
  verificationModule,
  walletsModule,
  adminModule, // provides admin
  platformModule, // needs admin
];

/** The API's schema: every module's resolver classes (instances from the composition root; none to print the SDL). */
export function buildApiSchema(opts: { resolvers?: ResolverInstances; pubSub?: PubSub } = {}): Promise<GraphQLSchema> {
  return buildGraphQLSchema({ classes: MODULES.flatMap((m) => m.resolvers), ...opts });
}
