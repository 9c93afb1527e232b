/** The sandbox (simulated upstream APIs) in its own process, from dist/: benchmark 2's upstream. */
import path from 'node:path';
import { DIST, serveCommands } from '../rpc';
import type * as SandboxModule from '../../../src/sandbox/sandbox.server';

const { startSandbox } = require(path.join(DIST, 'sandbox/sandbox.server.js')) as typeof SandboxModule;
let running: Awaited<ReturnType<typeof startSandbox>> | null = null;

serveCommands(
  {
    async start() {
      running = await startSandbox({ port: 0, host: '127.0.0.1' });
      return { url: running.url };
    },
  },
  async () => {
    await running?.close();
  },
);
