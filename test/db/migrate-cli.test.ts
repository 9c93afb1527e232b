import { runMigrateCli } from '../../src/db/migrate.cli';
import { loadMigrations } from '../../src/db/migrate';

const capture = () => {
  const lines: { out: string[]; err: string[] } = { out: [], err: [] };
  return { lines, io: { log: (s: string) => lines.out.push(s), error: (s: string) => lines.err.push(s) } };
};

describe('npm run db:migrate', () => {
  test('applies the migrations and says which (exit 0)', async () => {
    const { lines, io } = capture();
    expect(await runMigrateCli({ DATABASE_URL: 'memory://', LOG_LEVEL: 'silent' }, io)).toBe(0);
    const out = lines.out.join('\n');
    for (const m of loadMigrations()) expect(out).toContain(m.name);
    expect(lines.err).toEqual([]);
  });

  test('a configuration error is one message without a stack trace (exit 1)', async () => {
    const { lines, io } = capture();
    expect(await runMigrateCli({ DATABASE_URL: 'mysql://nope' }, io)).toBe(1);
    expect(lines.err).toHaveLength(1);
    expect(lines.err[0]).toMatch(/DATABASE_URL: must be memory:\/\//);
    expect(lines.err[0]).not.toMatch(/\n\s+at /);
  });
});
