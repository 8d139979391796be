import type { FastifyBaseLogger } from 'fastify';

/**
 * A background loop: runs `tick` until it reports no work, then sleeps `idleMs` (or until
 * poked). `tick` answers how many items it handled. Errors are logged and the loop goes
 * on after the idle pause; `stop` waits for the tick in progress.
 */
export class WorkerLoop {
  private running = false;
  private current: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** Poked while a tick ran: the work it announced may have come too late for that tick. */
  private poked = false;

  constructor(
    readonly name: string,
    private readonly tick: () => Promise<number>,
    private readonly log: FastifyBaseLogger,
    private readonly idleMs = 500,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.current = this.loop();
  }

  /**
   * Runs the next tick now instead of after the idle pause (new work was just recorded, a
   * slot was freed). A poke during a tick is not lost: the next tick follows at once.
   */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    await this.current;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let handled = 0;
      let failed = false;
      this.poked = false;
      try {
        handled = await this.tick();
      } catch (error) {
        failed = true;
        this.log.error({ worker: this.name, err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'worker tick failed');
      }
      if (handled > 0 || !this.running || (this.poked && !failed)) continue;
      await new Promise<void>((resume) => {
        this.wake = resume;
        this.timer = setTimeout(resume, this.idleMs);
      });
      clearTimeout(this.timer);
      this.wake = undefined;
    }
  }
}
