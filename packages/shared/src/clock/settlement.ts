import { addBusinessDays, nextBusinessDayOnOrAfter } from './business-days';
import { addCalendarDays } from './calendar-date';
import { pacificDate, startOfPacificDay } from './pacific';

/**
 * When a payment settles, N business days after its processing day's cutoff (docs/design.md).
 *
 * The processing day P is the Pacific calendar date of `processedAt`; its cutoff is the end of P (23:59:59.999 PT).
 * - N ≥ 1: the settlement day S is the N-th business day strictly after P, and the payment settles as S begins,
 *   at 00:00 Pacific on S (just after the cutoff of the day before). A card (N = 1) processed on Friday settles
 *   at Monday 00:00 PT, or Tuesday's when Monday is a holiday.
 * - N = 0 (same-day settlement): at the cutoff of P if P is a business day, otherwise at the cutoff of the next
 *   business day; the instant is again the following 00:00 Pacific.
 * The result is always a Pacific midnight strictly after `processedAt`, so it can be stored as `settleAt` and
 * compared with the account clock.
 */
export function settleAtFor(processedAt: Date, businessDays: number): Date {
  if (!Number.isSafeInteger(businessDays) || businessDays < 0) {
    throw new RangeError(`businessDays must be a non-negative integer, got ${businessDays}`);
  }
  // Every instant of one UTC hour has the same Pacific date (Pacific offsets are whole hours and change on the
  // hour), so the answer is kept per hour: the time-zone arithmetic runs once an hour, not once a payment.
  const key = `${Math.floor(processedAt.getTime() / HOUR_MS)}:${businessDays}`;
  const cached = recent.get(key);
  if (cached) return new Date(cached);
  const processingDay = pacificDate(processedAt);
  const settleAt =
    businessDays > 0
      ? startOfPacificDay(addBusinessDays(processingDay, businessDays))
      : startOfPacificDay(addCalendarDays(nextBusinessDayOnOrAfter(processingDay), 1));
  if (recent.size >= 64) recent.clear();
  recent.set(key, settleAt.getTime());
  return settleAt;
}

const HOUR_MS = 3_600_000;
const recent = new Map<string, number>();
