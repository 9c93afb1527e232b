/**
 * The simulated remittances platform's state, one per SandboxContext (shared by remittancesPlugin and
 * remittancesControlPlugin, which are registered separately). Forgets everything on ctx.bus 'reset'.
 */
import type { SandboxContext } from '../sandbox.context';
import { AgentStore } from './remittances.agents';
import { RemittancesAuth } from './remittances.auth';
import { WebhookDelivery } from './remittances.delivery';
import { PayoutStore } from './remittances.payout';
import { PeopleStore } from './remittances.people';
import { TransactionEngine } from './remittances.transactions';
import { WebhookStore } from './remittances.webhooks';

export class RemittancesPlatform {
  readonly webhooks: WebhookStore;
  readonly delivery: WebhookDelivery;
  readonly agents: AgentStore;
  readonly auth: RemittancesAuth;
  readonly transactions: TransactionEngine;
  readonly people: PeopleStore;
  readonly payout: PayoutStore;
  private users = 0;

  constructor(readonly ctx: SandboxContext) {
    this.webhooks = new WebhookStore(ctx);
    this.delivery = new WebhookDelivery(ctx, this.webhooks);
    this.agents = new AgentStore(ctx);
    this.agents.delivery = this.delivery;
    this.auth = new RemittancesAuth(ctx, this.agents);
    this.transactions = new TransactionEngine(ctx, this.delivery);
    this.people = new PeopleStore(ctx, this.delivery);
    this.payout = new PayoutStore(ctx, this.people);
    ctx.bus.on('reset', () => this.reset());
  }

  reset(): void {
    this.delivery.reset();
    this.transactions.reset();
    this.people.reset();
    this.payout.reset();
    this.agents.reset();
    this.webhooks.reset();
    this.auth.reset();
  }

  /** Called by each plugin that uses the platform; the last one to close stops timers and deliveries. */
  acquire(): void {
    this.users++;
  }

  async release(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0) {
      this.transactions.close();
      this.people.close();
      await this.delivery.close();
    }
  }
}

const platforms = new WeakMap<SandboxContext, RemittancesPlatform>();

export function platformFor(ctx: SandboxContext): RemittancesPlatform {
  let p = platforms.get(ctx);
  if (!p) {
    p = new RemittancesPlatform(ctx);
    platforms.set(ctx, p);
  }
  return p;
}
