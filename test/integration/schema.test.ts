import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSDL } from '../../src/graphql/schema';
import { buildApiSchema } from '../../src/modules/modules';

const FILE = join(__dirname, '..', '..', 'schema', 'schema.graphql');

describe('schema/schema.graphql', () => {
  it('is exactly what the code builds (run `npm run build && npm run schema:emit` after changing the API)', async () => {
    const built = printSDL(await buildApiSchema());
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(FILE, built);
    expect(readFileSync(FILE, 'utf8')).toBe(built);
  });

  it('has the contract scalars', async () => {
    const sdl = readFileSync(FILE, 'utf8');
    expect(sdl).toMatch(/^scalar DateTime$/m);
    expect(sdl).toMatch(/viewer: Viewer!/);
  });
});
