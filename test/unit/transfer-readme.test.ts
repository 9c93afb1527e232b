/**
 * The README's "Transfers" section documents the transition table and the statuses; this test keeps it true.
 * The transition table between the <!-- transitions:begin/end --> markers is rendered from TRANSITIONS
 * (src/modules/transfers/transfer.states.ts). On a difference: `PRINT_TRANSITIONS=1 npx jest test/unit/transfer-readme.test.ts`
 * prints the table to paste.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSFER_STATUSES, TRANSITIONS, isTerminal, type TransferStatus } from '../../src/modules/transfers/transfer.states';

export function renderTransitions(): string {
  const lines = ['| from | to | allowed causes |', '|---|---|---|'];
  for (const from of TRANSFER_STATUSES) {
    for (const to of TRANSFER_STATUSES) {
      const causes = TRANSITIONS[from]?.[to];
      if (causes?.length) lines.push(`| ${from} | ${to} | ${[...causes].sort().join(', ')} |`);
    }
  }
  return lines.join('\n');
}

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
const section = (() => {
  const start = readme.indexOf('\n## Transfers\n');
  const end = readme.indexOf('\n## ', start + 5);
  return start === -1 ? '' : readme.slice(start, end === -1 ? undefined : end);
})();

test('README "Transfers" has the transition table exactly as TRANSITIONS says', () => {
  if (process.env.PRINT_TRANSITIONS) process.stdout.write(`${renderTransitions()}\n`);
  const m = /<!-- transitions:begin -->\n([\s\S]*?)\n<!-- transitions:end -->/.exec(section);
  expect(m).not.toBeNull();
  expect(m![1]!.trim()).toBe(renderTransitions());
});

test('README "Transfers" lists every status once in its status table, terminal ones marked', () => {
  for (const s of TRANSFER_STATUSES) {
    const row = section.split('\n').find((l) => l.startsWith(`| \`${s}\` |`));
    expect(row).toBeDefined();
    expect(row!.includes('| yes |')).toBe(isTerminal(s as TransferStatus));
  }
});
