import { statementNamer } from '../../src/db/statement-names';

describe('statementNamer (PostgreSQL prepared statements)', () => {
  test('one name per distinct text, the same name every time the text comes again', () => {
    const name = statementNamer(10)!;
    const a = name({ sql: 'SELECT 1' });
    const b = name({ sql: 'SELECT 2' });
    expect(a).toMatch(/^bff_\d+$/);
    expect(b).toMatch(/^bff_\d+$/);
    expect(a).not.toBe(b);
    expect(name({ sql: 'SELECT 1' })).toBe(a);
    expect(name({ sql: 'SELECT 2' })).toBe(b);
  });

  test('bounded: texts beyond the first `max` are sent unnamed and not remembered', () => {
    const name = statementNamer(2)!;
    const first = [name({ sql: 'a' }), name({ sql: 'b' })];
    expect(first.every((n) => n !== undefined)).toBe(true);
    for (let i = 0; i < 1_000; i++) expect(name({ sql: `other ${i}` })).toBeUndefined();
    // the first two keep their names
    expect([name({ sql: 'a' }), name({ sql: 'b' })]).toEqual(first);
  });

  test('0 turns it off: no generator at all (every statement unnamed)', () => {
    expect(statementNamer(0)).toBeUndefined();
  });
});
