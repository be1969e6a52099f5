/** A delivery to try again later: the delay is the schedule's (with jitter) or the receiver's Retry-After. */
export class RetryLater extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RetryLater';
  }
}
