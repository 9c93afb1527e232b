/**
 * The issue-7 API surface (directory, wallets, verification, back-office, FX v1, legacy card check): its
 * resolver classes for the schema, and their construction for the composition root — one import each in
 * src/graphql/schema.ts and src/app.ts.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import type { Clock } from '../../shared/clock';
import type { UpstreamClients } from '../../upstream/upstream.clients';
import type { FundingCredentials } from '../checks/checks.credentials';
import { AdminResolver } from './admin.resolver';
import { AdminService } from './admin.service';
import { AliasAccountResolver, DirectoryResolver } from '../directory/directory.resolver';
import { DirectoryService } from '../directory/directory.service';
import { FxV1Resolver } from '../fxv1/fxv1.resolver';
import { FxV1Service } from '../fxv1/fxv1.service';
import { LegacyCardResolver } from '../legacy/legacy-card.resolver';
import { LegacyCardService } from '../legacy/legacy-card.service';
import { VerificationResolver } from '../verification/verification.resolver';
import { VerificationService } from '../verification/verification.service';
import { WalletResolver } from '../wallets/wallet.resolver';
import { WalletService } from '../wallets/wallet.service';
import { PlatformResolver } from '../platform/platform.resolver';
import { PlatformService } from '../platform/platform.service';

export const SURFACE_RESOLVERS = [
  FxV1Resolver,
  DirectoryResolver,
  AliasAccountResolver,
  VerificationResolver,
  WalletResolver,
  AdminResolver,
  LegacyCardResolver,
  PlatformResolver,
] as const;

export interface SurfaceDeps {
  prisma: PrismaClient;
  upstream: Pick<UpstreamClients, 'gateway' | 'remittances' | 'verification'>;
  clock: Clock;
  directory: { bankCacheTtlS: number; bankCacheMax: number };
  cardCheckLegacyEnabled: boolean;
  /** Card tokens the legacy check binds to their owner (shared with checkCard and createTransfer). */
  credentials: FundingCredentials;
}

export interface Surface {
  directory: DirectoryService;
  resolvers: [Function, object][];
}

export function createSurface(d: SurfaceDeps): Surface {
  const directory = new DirectoryService(d.upstream.gateway, d.clock, {
    bankTtlMs: d.directory.bankCacheTtlS * 1000,
    bankCacheMax: d.directory.bankCacheMax,
  });
  const admin = new AdminService(d.prisma, d.upstream.gateway, d.upstream.remittances);
  return {
    directory,
    resolvers: [
      [FxV1Resolver, new FxV1Resolver(new FxV1Service(d.upstream.gateway))],
      [DirectoryResolver, new DirectoryResolver(directory)],
      [AliasAccountResolver, new AliasAccountResolver(directory)],
      [VerificationResolver, new VerificationResolver(new VerificationService(d.prisma, d.upstream.verification, d.upstream.gateway))],
      [WalletResolver, new WalletResolver(new WalletService(d.prisma, d.upstream.gateway))],
      [AdminResolver, new AdminResolver(admin)],
      [LegacyCardResolver, new LegacyCardResolver(new LegacyCardService(d.upstream.gateway, d.cardCheckLegacyEnabled, d.credentials))],
      [PlatformResolver, new PlatformResolver(new PlatformService(d.upstream.remittances, admin))],
    ],
  };
}
