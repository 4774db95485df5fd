/**
 * transformers.js forms every file and metadata URL from one global, `env.remoteHost`, at the
 * moment of each request. A load, a plan and a delete run concurrently in the worker, each for a
 * model of its own host (the Hub, a `?modelHost=` mirror, the training service): were each to set
 * the global and await, one's requests would go to another's host — a trained model's name to the
 * Hub. The gate runs work for one host at a time: work for the host in use joins at once, work for
 * another waits until the host is free, and the global is set before each piece of work starts.
 */
export class HostGate {
  private host: string | null = null;
  private active = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly setHost: (host: string) => void) {}

  async run<T>(host: string, work: () => Promise<T>): Promise<T> {
    while (this.active > 0 && this.host !== host)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.host = host;
    this.active += 1;
    this.setHost(host);
    try {
      return await work();
    } finally {
      this.active -= 1;
      if (this.active === 0) for (const wake of this.waiting.splice(0)) wake();
    }
  }
}
