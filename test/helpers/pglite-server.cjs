// An in-memory PGlite behind the PostgreSQL wire protocol, for production-mode child processes on a machine
// without PostgreSQL. Prints `listening <port>` once ready; exits when its parent closes stdin.
const { PGlite } = require('@electric-sql/pglite');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

(async () => {
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 64 });
  await server.start();
  process.stdout.write(`listening ${server.port}\n`);
  const stop = async () => {
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
})().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
