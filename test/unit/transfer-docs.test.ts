/**
 * docs/transfers.md documents the transition table and the statuses; this test keeps it true.
 * The transition table between the <!-- transitions:begin/end --> markers is rendered from TRANSITIONS
 * (src/modules/transfer/transfer.states.ts). On a difference: `PRINT_TRANSITIONS=1 npx jest test/unit/transfer-docs.test.ts`
 * prints the table to paste.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSFER_STATUSES, TRANSITIONS, isTerminal, type TransferStatus } from '../../src/modules/transfer/transfer.states';

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

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'transfers.md'), 'utf8');

test('docs/transfers.md has the transition table exactly as TRANSITIONS says', () => {
  if (process.env.PRINT_TRANSITIONS) process.stdout.write(`${renderTransitions()}\n`);
  const m = /<!-- transitions:begin -->\n([\s\S]*?)\n<!-- transitions:end -->/.exec(doc);
  expect(m).not.toBeNull();
  expect(m![1]!.trim()).toBe(renderTransitions());
});

test('docs/transfers.md lists every status once in its status table, terminal ones marked', () => {
  for (const s of TRANSFER_STATUSES) {
    const rows = doc.split('\n').filter((l) => l.startsWith(`| \`${s}\` |`));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.includes('| yes |')).toBe(isTerminal(s as TransferStatus));
  }
});
