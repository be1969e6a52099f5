/**
 * In-flight deliveries per endpoint in this process. `acquire` waits up to `waitMs` for one of `limit` slots: a
 * fast receiver frees slots within milliseconds, so its deliveries queue briefly and go on; a slow or dead one
 * keeps its slots, the wait ends, and the caller steps aside instead of holding a worker slot.
 */
export class EndpointSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  async acquire(endpointId: string, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while ((this.busy.get(endpointId) ?? 0) >= this.limit) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        const queue = this.waiters.get(endpointId) ?? [];
        queue.push(() => {
          clearTimeout(timer);
          resolve();
        });
        this.waiters.set(endpointId, queue);
      });
    }
    this.busy.set(endpointId, (this.busy.get(endpointId) ?? 0) + 1);
    return true;
  }

  release(endpointId: string): void {
    const left = (this.busy.get(endpointId) ?? 1) - 1;
    if (left <= 0) this.busy.delete(endpointId);
    else this.busy.set(endpointId, left);
    const next = this.waiters.get(endpointId)?.shift();
    if (this.waiters.get(endpointId)?.length === 0) this.waiters.delete(endpointId);
    next?.();
  }
}
