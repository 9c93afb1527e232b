/**
 * GraphQL Code Generator document transform (codegen.ts): adds `__typename` to every selection set but an operation's
 * root, as Apollo Client and urql do before they send a document. The app's typed documents and the persisted-document
 * manifest then hold the text these clients send, and an answer by documentId carries the `__typename`s their
 * normalized caches need.
 */
const { Kind, visit } = require('graphql');

const TYPENAME = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };
const hasTypename = (set) => set.selections.some((s) => s.kind === Kind.FIELD && s.name.value === '__typename' && !s.alias);

/** `document` with `__typename` added to each selection set that is not an operation's root. */
function addTypename(document) {
  return visit(document, {
    SelectionSet: {
      leave(set, _key, parent) {
        if (parent && parent.kind === Kind.OPERATION_DEFINITION) return undefined;
        return hasTypename(set) ? undefined : { ...set, selections: [...set.selections, TYPENAME] };
      },
    },
  });
}

module.exports = {
  addTypename,
  transform: ({ documents }) => documents.map((d) => (d.document ? { ...d, document: addTypename(d.document) } : d)),
};
