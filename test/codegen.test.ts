/**
 * Codegen drift: the committed test/generated/graphql.ts must be exactly what `npm run codegen`
 * produces from schema/schema.graphql and test/operations/*.graphql (see the decision in codegen.ts).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { print } from 'graphql';
import config, { OUTPUT } from '../codegen';
import * as generated from './generated/graphql';

const ROOT = resolve(__dirname, '..');

async function generateInMemory(overrides: Partial<typeof config> = {}): Promise<{ filename: string; content: string }[]> {
  const cwd = process.cwd();
  process.chdir(ROOT); // the config's paths are relative to the repository root
  try {
    return await generate({ ...config, ...overrides, silent: true, verbose: false, errorsOnly: true }, false);
  } finally {
    process.chdir(cwd);
  }
}

describe('codegen', () => {
  test(`${OUTPUT} is up to date (else run: npm run codegen)`, async () => {
    const file = (await generateInMemory()).find((f) => resolve(ROOT, f.filename) === resolve(ROOT, OUTPUT));
    expect(file).toBeDefined();
    const committed = readFileSync(resolve(ROOT, OUTPUT), 'utf8');
    // compare line by line for a readable diff on failure
    expect(committed.split('\n')).toEqual(file!.content.split('\n'));
  }, 60_000);

  test('every operation file has its typed document', () => {
    const operations = readdirSync(join(ROOT, 'test/operations')).filter((f) => f.endsWith('.graphql'));
    expect(operations.length).toBeGreaterThan(0);
    const docs = generated as unknown as Record<string, unknown>;
    for (const file of operations) {
      const source = readFileSync(join(ROOT, 'test/operations', file), 'utf8');
      for (const [, kind, name] of source.matchAll(/^\s*(query|mutation|subscription)\s+(\w+)/gm)) {
        const capitalised = kind.charAt(0).toUpperCase() + kind.slice(1);
        const doc = docs[`${name}Document`] ?? docs[`${name}${capitalised}Document`];
        expect(doc).toBeDefined();
        expect(print(doc as Parameters<typeof print>[0])).toContain(`${kind} ${name}`);
      }
    }
  });

  test('an operation that does not match the schema fails generation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'codegen-'));
    try {
      writeFileSync(join(dir, 'bad.graphql'), 'query Bad { viewer { id noSuchField } }\n');
      await expect(generateInMemory({ documents: [join(dir, '*.graphql')] })).rejects.toThrow(/noSuchField/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
