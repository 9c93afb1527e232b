import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PRISMA_DIR } from '../../src/db/migrate';
import { diffMigrationsToSchema } from '../../src/db/schema-engine';

/**
 * prisma/migrations must produce exactly prisma/schema.prisma. If this fails you changed the schema
 * without a migration: `npm run build && npm run db:migration:create -- <name>`, review, commit both.
 */
describe('migrations ↔ schema.prisma', () => {
  test('no drift: applying the migrations yields exactly the schema', async () => {
    const diff = await diffMigrationsToSchema();
    if (diff !== null) {
      throw new Error(
        `prisma/schema.prisma differs from prisma/migrations. Create a migration ` +
          `(npm run build && npm run db:migration:create -- <name>). Missing SQL:\n${diff}`,
      );
    }
  }, 60_000);

  test('the check notices a schema edit without a migration', async () => {
    const schema = readFileSync(path.join(PRISMA_DIR, 'schema.prisma'), 'utf8');
    const edited = schema.replace(/(model WebhookSecret \{\n)/, '$1  note String?\n');
    expect(edited).not.toBe(schema);
    const diff = await diffMigrationsToSchema({ schemaContent: edited });
    expect(diff).toMatch(/ALTER TABLE "webhook_secrets" ADD COLUMN\s+"note" TEXT/);
  }, 60_000);
});
