import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/processes.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** The service from its TypeScript source (`pnpm dev`'s process: tsx src/server.ts) on a free port, with `env` over the test's; answers once it serves. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(join(apiRoot, 'node_modules', '.bin', 'tsx'), [join(apiRoot, 'src', 'server.ts')], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'silent', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  // A deadline for a hang, not for speed: tsx compiling the service on two busy cores can take a while.
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      await fetch(`${url}/v1/open-api/api.yml`);
      return { child, port, url, stop };
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`the server did not start (exit code ${child.exitCode})`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
