import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The service's process as `pnpm start` runs it (apps/api/package.json: its Node flags too),
 * `[command, ...args]`. The steps before the last (`build --if-stale && node dist/server.js`)
 * run here first.
 */
export function serviceCommand(): [string, string[]] {
  const start = (JSON.parse(readFileSync(join(apiRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const steps = start.split('&&').map((step): [string, string[]] => {
    const [command, ...args] = step.trim().split(/\s+/);
    return [
      command === 'node' ? process.execPath : join(apiRoot, 'node_modules', '.bin', command!),
      args.map((arg) => (arg.startsWith('-') ? arg : join(apiRoot, arg))),
    ];
  });
  for (const [command, args] of steps.slice(0, -1)) execFileSync(command, args, { cwd: apiRoot, stdio: 'inherit' });
  return steps.at(-1)!;
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

export interface Started {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a process and waits until `url` answers (any status). */
export async function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, url: string): Promise<Started> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}:\n${output}`);
    try {
      await fetch(url);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${command} did not answer at ${url}:\n${output}`);
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  return {
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface ProcessStat {
  pid: number;
  ppid: number;
  name: string;
  /**
   * User and system time, in ticks of 10 ms: its own, and that of its children that have
   * ended and been waited for (PostgreSQL's autovacuum workers and the backends of closed
   * connections come and go under a load; their time stays counted in their parent's).
   */
  ticks: number;
}

/** Every process of this machine as /proc has it (Linux); none where there is no /proc. */
function processStats(): ProcessStat[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      return [{ pid: Number(pid), ppid: Number(fields[1]), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(') ')), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) }];
    } catch {
      return []; // it ended meanwhile
    }
  });
}

/**
 * CPU time (user and system, ms) that processes have used so far: the `roots` and every
 * process under them (tsx runs the bare route's server in a child), or, with a `name`, every
 * process of that name (`postgres`: PostgreSQL's backends and its own workers). Read from
 * /proc at 100 ticks a second; 0 where there is no /proc.
 */
export function cpuMs(processes: { roots: number[] } | { name: string }): number {
  const stats = processStats();
  let chosen: ProcessStat[];
  if ('name' in processes) chosen = stats.filter((s) => s.name === processes.name);
  else {
    const inTree = new Set(processes.roots);
    for (let grew = true; grew; ) {
      grew = false;
      for (const s of stats) if (!inTree.has(s.pid) && inTree.has(s.ppid)) (inTree.add(s.pid), (grew = true));
    }
    chosen = stats.filter((s) => inTree.has(s.pid));
  }
  return chosen.reduce((sum, s) => sum + s.ticks, 0) * 10;
}
