import { Arg, Args, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { AddressInput } from '../../graphql/address.types';
import type { GraphQLContext } from '../../graphql/context';
import { JSONObjectScalar } from '../../graphql/json.scalar';
import { MoneyInput } from '../../graphql/money.types';
import { offsetConnection, pageRequest } from '../../graphql/relay';
import { CreateAgentInput, CreatedAgent } from '../admin/admin.ports';
import type { PlatformService } from './platform.service';
import {
  CreatePlatformFxTransactionInput,
  PlatformFxTransactionConnection,
  PlatformFxTransactionsArgs,
  PlatformMetadataWriteMode,
  PlatformPayoutSchemaKind,
} from './platform.types';

type Obj = Record<string, unknown>;
const STAFF = ['backoffice', 'admin'] as const;

/**
 * Back-office access to the remittances platform's "other endpoints" (src/modules/platform). Reads and
 * onboarding writes (people, documents, accounts, payout quotes): back-office and admins. Writes that move
 * or commit money (FX transactions, their cancellation and metadata, wallet deposits) and agent creation:
 * admins only. Resources pass through as JSONObject (their shapes are not shown upstream).
 */
@Resolver()
export class PlatformResolver {
  constructor(private readonly platform: PlatformService) {}

  // ── people, compliance, documents, addresses ──
  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: 'Back-office and admins: a person (participant) at the remittances platform. NOT_FOUND when unknown.',
  })
  platformPerson(@Arg('id', () => ID, { description: "The platform's person id." }) id: string): Promise<Obj> {
    return this.platform.getPerson(id);
  }

  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description:
      'Back-office and admins: create a person (participant) at the remittances platform, e.g. {firstName, lastName, email, dateOfBirth, address}. Sent once.',
  })
  createPlatformPerson(
    @Arg('person', () => JSONObjectScalar, { validate: false, description: 'The person, as the platform takes it.' }) person: Obj,
  ): Promise<Obj> {
    return this.platform.createPerson(person);
  }

  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description: 'Back-office and admins: change fields of a platform person (the given fields are merged in).',
  })
  updatePlatformPerson(
    @Arg('id', () => ID, { description: "The platform's person id." }) id: string,
    @Arg('patch', () => JSONObjectScalar, { validate: false, description: 'The fields to change.' }) patch: Obj,
  ): Promise<Obj> {
    return this.platform.updatePerson(id, patch);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description:
      "Back-office and admins: a participant's compliance levels at the platform (current level, each level's status and requirements).",
  })
  platformComplianceLevels(
    @Arg('participantId', () => ID, { description: "The platform's person (participant) id." }) participantId: string,
  ): Promise<Obj> {
    return this.platform.complianceLevels(participantId);
  }

  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description:
      'Back-office and admins: upload a document for a platform person; verification follows asynchronously (document events). Sent once.',
  })
  uploadPlatformDocument(
    @Arg('personId', () => ID, { description: "The platform's person id." }) personId: string,
    @Arg('document', () => JSONObjectScalar, {
      validate: false,
      description: 'The document, as the platform takes it, e.g. {documentType, fileName, content}.',
    })
    document: Obj,
    @Arg('documentType', () => String, {
      nullable: true,
      description: 'The document type (e.g. PASSPORT), when given in the path rather than in the document.',
    })
    documentType?: string | null,
  ): Promise<Obj> {
    return this.platform.uploadDocument(personId, document, documentType);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: 'Back-office and admins: check and normalise an address at the platform (valid, problems, normalized).',
  })
  platformAddressCheck(@Arg('address', () => AddressInput, { description: 'The address to check.' }) address: AddressInput): Promise<Obj> {
    return this.platform.checkAddress(address);
  }

  // ── payout ──
  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description:
      'Back-office and admins: a payout price offer from the platform, e.g. for {sourceCurrency, destinationCurrency, sourceAmount, destinationCountry}.',
  })
  createPlatformPayoutQuote(
    @Arg('request', () => JSONObjectScalar, { validate: false, description: 'The quote request, as the platform takes it.' }) request: Obj,
  ): Promise<Obj> {
    return this.platform.createPayoutQuote(request);
  }

  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description: 'Back-office and admins: add a funding account (card or bank account) to a platform participant. Sent once.',
  })
  createPlatformFundingAccount(
    @Arg('participantId', () => ID, { description: "The platform's person (participant) id." }) participantId: string,
    @Arg('account', () => JSONObjectScalar, {
      validate: false,
      description: 'The account, as the platform takes it, e.g. {type: "CARD", cardTokenId}.',
    })
    account: Obj,
  ): Promise<Obj> {
    return this.platform.createFundingAccount(participantId, account);
  }

  @Authorized(...STAFF)
  @Mutation(() => JSONObjectScalar, {
    description: 'Back-office and admins: add a recipient account (paid out through the gateway) to a platform participant. Sent once.',
  })
  createPlatformRecipientAccount(
    @Arg('participantId', () => ID, { description: "The platform's person (participant) id." }) participantId: string,
    @Arg('account', () => JSONObjectScalar, { validate: false, description: 'The recipient account details, as the platform takes them.' })
    account: Obj,
  ): Promise<Obj> {
    return this.platform.createRecipientAccount(participantId, account);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: 'Back-office and admins: the payout destinations (country, currency, payment methods) the platform serves.',
  })
  platformPayoutDestinations(): Promise<Obj> {
    return this.platform.destinations();
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, { description: 'Back-office and admins: the banks the platform pays out to in a destination country.' })
  platformPayoutBanks(
    @Arg('countryCode', { description: 'ISO 3166-1 alpha-2 destination country, e.g. "BR".' }) countryCode: string,
  ): Promise<Obj> {
    return this.platform.destinationBanks(countryCode);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: 'Back-office and admins: the fields the platform requires for a payout recipient, account or transaction.',
  })
  platformPayoutSchema(
    @Arg('kind', () => PlatformPayoutSchemaKind, { description: 'Which form.' }) kind: PlatformPayoutSchemaKind,
    @Arg('countryCode', () => String, { nullable: true, description: 'ISO 3166-1 alpha-2 destination country, e.g. "BR" (optional).' })
    countryCode?: string | null,
  ): Promise<Obj> {
    return this.platform.payoutSchema(kind, countryCode);
  }

  // ── FX transactions ──
  @Authorized('admin')
  @Mutation(() => JSONObjectScalar, {
    description:
      'Admins: create an FX transaction at the platform. Idempotent by externalTransactionId: repeating it answers the existing transaction.',
  })
  createPlatformFxTransaction(
    @Arg('input', () => CreatePlatformFxTransactionInput, { description: 'The transaction, with your externalTransactionId.' })
    input: CreatePlatformFxTransactionInput,
  ): Promise<Obj> {
    return this.platform.createFxTransaction(input);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, { description: 'Back-office and admins: one platform FX transaction. NOT_FOUND when unknown.' })
  platformFxTransaction(
    @Arg('id', () => ID, { description: 'The transactionId or your externalTransactionId.' }) id: string,
  ): Promise<Obj> {
    return this.platform.fxTransaction(id);
  }

  @Authorized(...STAFF)
  @Query(() => PlatformFxTransactionConnection, {
    description: 'Back-office and admins: platform FX transactions, optionally filtered, page by page.',
  })
  async platformFxTransactions(@Args() args: PlatformFxTransactionsArgs): Promise<PlatformFxTransactionConnection> {
    return offsetConnection(await this.platform.fxTransactions(args, pageRequest(args.first, args.after)));
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, { description: 'Back-office and admins: every status change of a platform FX transaction, oldest first.' })
  platformFxTransactionStatusHistory(
    @Arg('id', () => ID, { description: 'The transactionId or your externalTransactionId.' }) id: string,
  ): Promise<Obj> {
    return this.platform.fxTransactionStatusHistory(id);
  }

  @Authorized('admin')
  @Mutation(() => JSONObjectScalar, {
    description: 'Admins: ask the platform to cancel an FX transaction (INVALID_STATE-like refusal once captured or finished). Sent once.',
  })
  cancelPlatformFxTransaction(
    @Arg('id', () => ID, { description: 'The transactionId or your externalTransactionId.' }) id: string,
  ): Promise<Obj> {
    return this.platform.cancelFxTransaction(id);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, { description: 'Back-office and admins: the metadata stored with a platform FX transaction.' })
  platformFxTransactionMetadata(
    @Arg('id', () => ID, { description: 'The transactionId or your externalTransactionId.' }) id: string,
  ): Promise<Obj> {
    return this.platform.fxTransactionMetadata(id);
  }

  @Authorized('admin')
  @Mutation(() => JSONObjectScalar, {
    description: 'Admins: write the metadata of a platform FX transaction (replace, or merge into the current one).',
  })
  setPlatformFxTransactionMetadata(
    @Arg('id', () => ID, { description: 'The transactionId or your externalTransactionId.' }) id: string,
    @Arg('metadata', () => JSONObjectScalar, { validate: false, description: 'The metadata object.' }) metadata: Obj,
    @Arg('mode', () => PlatformMetadataWriteMode, {
      defaultValue: PlatformMetadataWriteMode.REPLACE,
      description: 'Replace (default) or merge.',
    })
    mode: PlatformMetadataWriteMode,
  ): Promise<Obj> {
    return this.platform.setFxTransactionMetadata(id, metadata, mode);
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: "Back-office and admins: the platform's FX transaction limits (per transaction, daily, monthly).",
  })
  platformFxTransactionLimits(): Promise<Obj> {
    return this.platform.fxTransactionLimits();
  }

  // ── platform wallets ──
  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, {
    description: 'Back-office and admins: our wallets at the remittances platform (available and pending per currency).',
  })
  platformWallets(): Promise<Obj> {
    return this.platform.wallets();
  }

  @Authorized(...STAFF)
  @Query(() => JSONObjectScalar, { description: 'Back-office and admins: our wallet in one currency at the remittances platform.' })
  platformWallet(@Arg('currency', { description: 'ISO 4217 currency code, e.g. "USD".' }) currency: string): Promise<Obj> {
    return this.platform.wallet(currency);
  }

  @Authorized('admin')
  @Mutation(() => JSONObjectScalar, {
    description: 'Admins: record a deposit into our platform wallet; answers the wallet. Sent once (never repeated automatically).',
  })
  depositToPlatformWallet(
    @Arg('amount', () => MoneyInput, { description: 'What to deposit, e.g. { amount: "100.00", currency: "USD" }.' }) amount: MoneyInput,
  ): Promise<Obj> {
    return this.platform.deposit(amount);
  }

  // ── agents ──
  @Authorized('admin')
  @Mutation(() => CreatedAgent, {
    description:
      "Admins: create an agent through the platform's legacy tenant-level endpoint (POST /agents); same result as createAgent (API key shown once).",
  })
  createAgentLegacy(
    @Arg('input', () => CreateAgentInput, { description: 'The agent to create.' }) input: CreateAgentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedAgent> {
    return this.platform.createAgentLegacy(ctx.caller!, input) as Promise<CreatedAgent>;
  }
}
