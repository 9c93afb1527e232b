/**
 * GraphQL Code Generator plugin (codegen.ts): the persisted-document manifest of the app's operations,
 * `{ "sha256:<hex>": "<document text>" }`. The text of each operation is exactly what an app sends for it:
 * `print()` of its typed document (the operation, then the fragments it uses, as typed-document-node emits
 * them), and the id is the sha256 of that text (GraphQL-over-HTTP persisted documents). The service loads
 * this file in TRUSTED_DOCUMENTS=allow|only mode.
 */
const { createHash } = require('node:crypto');
const { Kind, print, visit } = require('graphql');

/** The fragments `node` spreads, directly or through other fragments, in first-use order. */
function fragmentsUsedBy(node, fragments, seen = new Set()) {
  visit(node, {
    FragmentSpread(spread) {
      const name = spread.name.value;
      if (seen.has(name) || !fragments.has(name)) return;
      seen.add(name);
      fragmentsUsedBy(fragments.get(name), fragments, seen);
    },
  });
  return [...seen].map((name) => fragments.get(name));
}

/** The manifest of `documents` (codegen's document files) as an object, ids sorted. */
function manifestOf(documents) {
  const definitions = documents.flatMap((d) => (d.document ? d.document.definitions : []));
  const fragments = new Map(definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, stripLoc(f)]));
  const entries = [];
  for (const op of definitions) {
    if (op.kind !== Kind.OPERATION_DEFINITION) continue;
    const operation = stripLoc(op);
    const text = print({ kind: Kind.DOCUMENT, definitions: [operation, ...fragmentsUsedBy(operation, fragments)] });
    entries.push([`sha256:${createHash('sha256').update(text).digest('hex')}`, text]);
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const stripLoc = (node) => visit(node, { enter: (n) => (n.loc ? { ...n, loc: undefined } : undefined) });

module.exports = {
  plugin: (_schema, documents) => `${JSON.stringify(manifestOf(documents), null, 2)}\n`,
  manifestOf,
};
