/**
 * Jest globalSetup: builds the migrated PGlite template once, before the workers start, so that the first
 * test of each worker does not pay for (and time out on) applying every migration under load — workers
 * then load the cached dump from .cache/ (see pgliteTemplate in ./db.ts). Nothing to do on PostgreSQL.
 */
import { pgliteTemplate, usingPostgres } from './db';

export default async function globalSetup(): Promise<void> {
  if (!usingPostgres()) await pgliteTemplate();
}
