/** `npm run schema:emit`: writes schema/schema.graphql from the code (a test fails when they differ). */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSDL } from './graphql/schema';
import { buildApiSchema } from './modules/modules';

buildApiSchema().then(
  (schema) => {
    const file = join(__dirname, '..', 'schema', 'schema.graphql');
    writeFileSync(file, printSDL(schema));
    console.log(`wrote ${file}`);
  },
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
