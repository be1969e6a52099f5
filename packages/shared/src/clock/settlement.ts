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
  const processingDay = pacificDate(processedAt);
  if (businessDays > 0) return startOfPacificDay(addBusinessDays(processingDay, businessDays));
  return startOfPacificDay(addCalendarDays(nextBusinessDayOnOrAfter(processingDay), 1));
}
