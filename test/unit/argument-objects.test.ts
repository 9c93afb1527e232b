/**
 * Argument objects stay fast objects: class fields without an initializer are not own properties (tsconfig.json and
 * .swcrc: useDefineForClassFields false), so TypeGraphQL, which deletes every undefined own field the client left out
 * of the arguments, has nothing to delete — a deleted property turns an object into a slow dictionary for every later
 * read and enumeration (the argument check enumerates it on every request).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PageArgs } from '../../src/graphql/relay';

const root = join(__dirname, '..', '..');

test('as the tests compile it: a new argument object has no own fields', () => {
  expect(Object.keys(new PageArgs())).toEqual([]);
});

test('as the build ships it: the arguments TypeGraphQL builds from a partial input are a fast object', () => {
  // V8's own check, in a child process (it needs --allow-natives-syntax), on dist/ (npm test builds it first)
  const script = `
    require('reflect-metadata');
    const { PageArgs } = require(${JSON.stringify(join(root, 'dist', 'graphql', 'relay.js'))});
    const { convertToType } = require(require('node:path').join(require('node:path').dirname(require.resolve('type-graphql')), 'helpers', 'types.js'));
    const args = convertToType(PageArgs, { first: 20 });
    process.stdout.write(JSON.stringify({ keys: Object.keys(args), fast: %HasFastProperties(args) }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '-e', script], { cwd: root, encoding: 'utf8' }));
  expect(out).toEqual({ keys: ['first'], fast: true });
});
