/**
 * The app's operations (schema/app/*.graphql): the committed typed documents (schema/app/generated.ts) and the
 * persisted-document manifest (schema/app/persisted-documents.json) must be exactly what `npm run codegen`
 * produces, and the manifest must hold, for every typed document, the text an app sends for it under the id
 * of that text.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { print, type DocumentNode } from 'graphql';
import config, { APP_MANIFEST, APP_OUTPUT } from '../codegen';
import * as app from '../schema/app/generated';

const ROOT = resolve(__dirname, '..');
const documents = Object.entries(app as unknown as Record<string, unknown>)
  .filter(([name, value]) => name.endsWith('Document') && typeof value === 'object')
  .map(([name, value]) => ({ name, text: print(value as DocumentNode) }));

describe('app documents', () => {
  test.each([APP_OUTPUT, APP_MANIFEST])(
    '%s is up to date (else run: npm run codegen)',
    async (output) => {
      const cwd = process.cwd();
      process.chdir(ROOT);
      let files: { filename: string; content: string }[];
      try {
        files = await generate(
          { ...config, generates: { [output]: config.generates[output] }, silent: true, verbose: false, errorsOnly: true },
          false,
        );
      } finally {
        process.chdir(cwd);
      }
      expect(files).toHaveLength(1);
      expect(readFileSync(resolve(ROOT, output), 'utf8').split('\n')).toEqual(files[0].content.split('\n'));
    },
    60_000,
  );

  test('every operation of schema/app has its typed document and its manifest entry (sha256 of the text sent)', () => {
    const manifest = JSON.parse(readFileSync(resolve(ROOT, APP_MANIFEST), 'utf8')) as Record<string, string>;
    const names = readdirSync(join(ROOT, 'schema/app'))
      .filter((f) => f.endsWith('.graphql'))
      .flatMap((f) =>
        [...readFileSync(join(ROOT, 'schema/app', f), 'utf8').matchAll(/^\s*(?:query|mutation|subscription)\s+(\w+)/gm)].map((m) => m[1]),
      );
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) expect(documents.map((d) => d.name)).toContain(`${name}Document`);
    // the journey an app needs, one document each
    for (const op of [
      'viewer',
      'corridors',
      'corridor',
      'createQuote',
      'createPerson',
      'checkCard',
      'checkBankAccount',
      'createTransfer',
      'resumeTransfer',
      'transfer',
      'transfers',
      'transferUpdated',
      'myTransfers',
      'persons',
      'createRecipient',
      'recipients',
      'deleteRecipient',
    ])
      expect(documents.some((d) => new RegExp(`^\\s+${op}[ ({]`, 'm').test(d.text))).toBe(true);
    const expected = Object.fromEntries(documents.map((d) => [`sha256:${createHash('sha256').update(d.text).digest('hex')}`, d.text]));
    expect(manifest).toEqual(expected);
  });
});
