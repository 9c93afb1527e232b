import type { Scenario } from '../lib/common';
import { authAttacks, authAttacksProduction } from './auth-attacks';
import { concurrency } from './concurrency';
import { dependencyLoss } from './dependency-loss';
import { hostileInput } from './hostile-input';
import { killStorm } from './kill-storm';
import { moneyBack } from './money-back';
import { unknownOutcomes } from './unknown-outcomes';
import { webhookChaos } from './webhook-chaos';

/** The scenarios, in order (id → run). */
export const SCENARIOS: { id: number; name: string; run: Scenario }[] = [
  { id: 1, name: 'kill storm', run: killStorm },
  { id: 2, name: 'unknown outcomes', run: unknownOutcomes },
  { id: 3, name: 'webhook chaos', run: webhookChaos },
  { id: 4, name: 'concurrency', run: concurrency },
  { id: 5, name: 'dependency loss', run: dependencyLoss },
  { id: 6, name: 'hostile input', run: hostileInput },
  { id: 7, name: 'auth attacks', run: authAttacks },
  { id: 8, name: 'auth attacks (production)', run: authAttacksProduction },
  { id: 9, name: 'money back', run: moneyBack },
];
