/** The sandbox (simulated upstream APIs) in its own process, as built (packages/sandbox/dist): benchmark 2's upstream. */
import { serveCommands } from '../rpc';
import type * as SandboxModule from '@remittance-bff/sandbox';

// Plain Node resolution (this runs under register.cjs, not jest): the package's built entry point.
const { startSandbox } = require('@remittance-bff/sandbox') as typeof SandboxModule;
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
