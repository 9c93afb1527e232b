// An in-memory PGlite behind the PostgreSQL wire protocol, for production-mode child processes on a machine
// without PostgreSQL. Prints `listening <port>` once ready; exits when its parent closes stdin.
//
// PGlite is one session. Many client connections share it safely only if their messages never interleave
// within a unit of work, so this server (not @electric-sql/pglite-socket's per-message multiplexer, whose
// interleaved Parse/Bind of two connections answered "bind message supplies 12 parameters, but prepared
// statement requires 9") runs each connection's messages in groups that end at Sync, Query or Terminate,
// one group at a time, and keeps the session for one connection while it is inside a transaction.
const net = require('node:net');
const { PGlite } = require('@electric-sql/pglite');

let holder = null; // connection holding the session
const waiting = [];
const lock = (id) =>
  holder === null || holder === id ? ((holder = id), Promise.resolve()) : new Promise((resolve) => waiting.push({ id, resolve }));
const release = () => {
  holder = null;
  const next = waiting.shift();
  if (next) {
    holder = next.id;
    next.resolve();
  }
};

(async () => {
  const db = await PGlite.create();
  let nextId = 1;
  const server = net.createServer((socket) => {
    const id = nextId++;
    let buf = Buffer.alloc(0);
    let started = false;
    let group = [];
    let chain = Promise.resolve();
    let closed = false;
    socket.setNoDelay(true);

    const run = (messages) => {
      chain = chain.then(async () => {
        if (closed) return;
        await lock(id);
        try {
          for (const m of messages) {
            if (closed) break;
            await db.execProtocolRawStream(m, { onRawData: (d) => d.length && !socket.destroyed && socket.write(Buffer.from(d)) });
          }
        } catch (e) {
          socket.destroy(e);
        } finally {
          if (closed && db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
          if (closed || !db.isInTransaction()) release();
        }
      });
    };

    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (!started) {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          const msg = new Uint8Array(buf.subarray(0, len));
          buf = buf.subarray(len);
          if (code === 80877103) {
            socket.write('N'); // SSLRequest: no TLS here
            continue;
          }
          started = true;
          run([msg]);
          continue;
        }
        if (buf.length < 5) return;
        const len = 1 + buf.readInt32BE(1);
        if (buf.length < len) return;
        const type = String.fromCharCode(buf[0]);
        const msg = new Uint8Array(buf.subarray(0, len));
        buf = buf.subarray(len);
        if (type === 'X') {
          socket.end();
          return;
        }
        group.push(msg);
        if (type === 'S' || type === 'Q' || type === 'H') {
          run(group);
          group = [];
        }
      }
    });
    const close = () => {
      if (closed) return;
      closed = true;
      chain = chain.then(async () => {
        if (holder === id) {
          if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
          release();
        }
      });
    };
    socket.on('close', close);
    socket.on('error', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`listening ${server.address().port}\n`);
  const stop = async () => {
    server.close();
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
