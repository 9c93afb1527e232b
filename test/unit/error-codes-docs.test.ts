/** Every code an AppError can carry is explained in docs/api.md's table of error codes (no database). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/shared/errors';

test('docs/api.md explains every AppError code', () => {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const table = doc.slice(doc.indexOf('### Errors and codes'), doc.indexOf('### Pagination'));
  expect(ERROR_CODES.filter((code) => !table.includes(`\`${code}\``))).toEqual([]);
});
