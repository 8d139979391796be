// The benches' CPU a request (bench/processes.ts, cpuMs): the time of processes that ended
// within a measurement stays counted (in their parent's children's time), as PostgreSQL's
// autovacuum workers and closed connections' backends end under a load.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuMs } from '../bench/processes.js';

// A parent that starts a child spending 400 ms of CPU (counted by itself, whatever else runs), waits for it to end, then says so and idles.
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'for (let u = process.cpuUsage(); u.user + u.system < 400_000; u = process.cpuUsage());'], { stdio: 'ignore' });
child.on('exit', () => { console.log('child ended'); setTimeout(() => {}, 10_000); });
`;

describe.runIf(existsSync('/proc/self/stat'))('cpuMs', () => {
  it('keeps counting the CPU of a process under the roots after it ended', async () => {
    const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const before = cpuMs({ roots: [parent.pid!] });
      const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
      expect(line.toString()).toContain('child ended');
      // The parent's own start costs some tens of ms; the child's busy loop 400 more.
      expect(cpuMs({ roots: [parent.pid!] }) - before).toBeGreaterThanOrEqual(300);
    } finally {
      parent.kill();
    }
  });
});
