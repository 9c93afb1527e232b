/**
 * Every code an app may branch on is explained in docs/api.md's "Errors and codes": each error code an error may
 * carry, each field error code, each transfer failure code (no database).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_ERROR_CODES, FIELD_ERROR_CODES } from '../../src/shared/errors';
import { FAILURE_CODES } from '../../src/shared/failure-codes';

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
const section = doc.slice(doc.indexOf('### Errors and codes'), doc.indexOf('### Pagination'));

test.each([
  ['error code', [...API_ERROR_CODES]],
  ['field error code', [...FIELD_ERROR_CODES]],
  ['transfer failure code', Object.keys(FAILURE_CODES)],
])('docs/api.md explains every %s', (_kind, codes) => {
  expect(section.length).toBeGreaterThan(0);
  expect(codes.filter((code) => !section.includes(`\`${code}\``))).toEqual([]);
});

test('docs/api.md says how the language is chosen, over HTTP and graphql-ws', () => {
  for (const text of ['Accept-Language', 'acceptLanguage', 'extensions.fields', 'extensions.detail']) expect(section).toContain(text);
});
