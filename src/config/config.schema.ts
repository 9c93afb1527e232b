import { z } from 'zod';
import { authFields } from './config.auth';
import { databaseFields } from './config.database';
import { graphqlFields } from './config.graphql';
import { observabilityFields } from './config.observability';
import { sagaFields } from './config.saga';
import { serverFields } from './config.server';
import { transfersFields } from './config.transfers';
import { upstreamFields } from './config.upstream';
import { webhooksFields } from './config.webhooks';

/** Every variable the service reads, group by group (the reference lists them by their documented section). */
export const schema = z.object({
  ...serverFields,
  ...databaseFields,
  ...upstreamFields,
  ...authFields,
  ...sagaFields,
  ...webhooksFields,
  ...transfersFields,
  ...graphqlFields,
  ...observabilityFields,
});

export type Env = z.infer<typeof schema>;
