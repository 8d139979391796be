import type { FastifyBaseLogger } from 'fastify';

/** What a loop says of itself to the readiness check (`GET /health/ready`). */
export interface WorkerLiveness {
  name: string;
  /** Started and not stopped. */
  running: boolean;
  /** When it last polled for work: the end of its last tick, or the start of the tick in progress (ms since the epoch). */
  lastPollAt: number | undefined;
  /** How long it may go without polling before it counts as stuck: twice its idle pause, and at least a minute. */
  staleAfterMs: number;
}

/** The least time a loop may go without polling before it counts as stuck (a slow tick of a fast loop is not). */
const MIN_STALE_AFTER_MS = 60_000;

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
  /** Wall-clock times (not the service's clock, which tests move) of the last tick's end and of the tick in progress. */
  private lastTickEndedAt: number | undefined;
  private tickStartedAt: number | undefined;

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

  /** Whether the loop runs and when it last polled, for the readiness check. */
  liveness(): WorkerLiveness {
    const lastPollAt = Math.max(this.lastTickEndedAt ?? -Infinity, this.tickStartedAt ?? -Infinity);
    return {
      name: this.name,
      running: this.running,
      lastPollAt: Number.isFinite(lastPollAt) ? lastPollAt : undefined,
      staleAfterMs: Math.max(2 * this.idleMs, MIN_STALE_AFTER_MS),
    };
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
      this.tickStartedAt = Date.now();
      try {
        handled = await this.tick();
      } catch (error) {
        failed = true;
        this.log.error({ worker: this.name, err: { type: (error as Error)?.name, message: (error as Error)?.message } }, 'worker tick failed');
      }
      this.tickStartedAt = undefined;
      this.lastTickEndedAt = Date.now();
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
