import { type MerchantAttributes, payoutScheduleSchema } from '@pps/shared/contract';
import type { FC } from 'hono/jsx';
import type { ApiAnswer } from '../console-api';
import type { Viewer } from '../session/sessions.usecases';
import { CsrfField } from './layout';

export type PayoutSchedule = MerchantAttributes['payoutSchedule'];

/** The contract's choices, so the form offers what PUT /merchants/{id}/payout-schedule takes and nothing else. */
const INTERVALS = payoutScheduleSchema.shape.interval.options;
const WEEKDAYS = payoutScheduleSchema.shape.weeklyAnchor.unwrap().options;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const businessDays = (n: number) => `${n} business day${n === 1 ? '' : 's'}`;

/** "Weekly on Friday, 2 business days after the money is available", as a person reads a schedule. */
export function describeSchedule(schedule: PayoutSchedule): string {
  if (schedule.interval === 'manual') return 'Manual: paid out only when asked (POST /payouts)';
  const when =
    schedule.interval === 'weekly'
      ? `Weekly on ${capitalised(schedule.weeklyAnchor ?? '')}`
      : schedule.interval === 'monthly'
        ? `Monthly on day ${schedule.monthlyAnchor}`
        : 'Daily';
  return schedule.delayDays === 0
    ? `${when}, as soon as the money is available`
    : `${when}, ${businessDays(schedule.delayDays)} after the money is available`;
}

/** The form as posted, text as typed, kept when the API refuses it so nothing is typed twice. */
export type ScheduleDraft = { interval: string; weeklyAnchor: string; monthlyAnchor: string; delayDays: string };

export const draftOfSchedule = (schedule: PayoutSchedule): ScheduleDraft => ({
  interval: schedule.interval,
  weeklyAnchor: schedule.weeklyAnchor ?? '',
  monthlyAnchor: schedule.monthlyAnchor === null ? '' : String(schedule.monthlyAnchor),
  delayDays: String(schedule.delayDays),
});

export const draftOfForm = (form: Record<string, string>): ScheduleDraft => ({
  interval: (form.interval ?? '').trim(),
  weeklyAnchor: (form.weeklyAnchor ?? '').trim(),
  monthlyAnchor: (form.monthlyAnchor ?? '').trim(),
  delayDays: (form.delayDays ?? '').trim(),
});

/** Digits as a number; other text as it is, for the API to name what is wrong with it; nothing as absent. */
const integerOrText = (text: string) => (text === '' ? undefined : /^\d{1,6}$/.test(text) ? Number(text) : text);

/**
 * The body of PUT /merchants/{id}/payout-schedule. The form shows both anchors; only the chosen interval's is sent,
 * so switching from weekly to daily needs no clearing of the weekday (the API refuses an anchor of another interval).
 */
export const scheduleBody = (draft: ScheduleDraft) => ({
  data: {
    type: 'merchants',
    attributes: {
      interval: draft.interval,
      weeklyAnchor: draft.interval === 'weekly' ? draft.weeklyAnchor || undefined : undefined,
      monthlyAnchor: draft.interval === 'monthly' ? integerOrText(draft.monthlyAnchor) : undefined,
      delayDays: integerOrText(draft.delayDays),
    },
  },
});

type ScheduleField = keyof ScheduleDraft;
const FIELDS: readonly ScheduleField[] = ['interval', 'weeklyAnchor', 'monthlyAnchor', 'delayDays'];
export type ScheduleErrors = Partial<Record<ScheduleField | 'form', string[]>>;
type ErrorWithSource = { detail: string; source?: { pointer?: string } };

/** The API's errors by the field of the form each names (its JSON pointer); the others are the form's. */
export function scheduleErrorsOf(answer: ApiAnswer): ScheduleErrors {
  const errors: ScheduleErrors = {};
  for (const error of (answer.body?.errors ?? []) as ErrorWithSource[]) {
    const named = /^\/data\/attributes\/(\w+)$/.exec(error.source?.pointer ?? '')?.[1];
    const key = FIELDS.find((field) => field === named) ?? 'form';
    errors[key] = [...(errors[key] ?? []), error.detail];
  }
  return errors;
}

const errorId = (field: ScheduleField) => `schedule-${field}-error`;

/** A field's control's error attributes, and its help's id when it has one. */
const described = (field: ScheduleField, errors: ScheduleErrors, help?: string) => {
  const ids = [errors[field] ? errorId(field) : undefined, help].filter(Boolean).join(' ');
  return { 'aria-invalid': errors[field] ? 'true' : undefined, 'aria-describedby': ids || undefined };
};

const FieldError: FC<{ field: ScheduleField; errors: ScheduleErrors }> = ({ field, errors }) =>
  errors[field] ? (
    <p id={errorId(field)} class="notice error">
      {errors[field].join(' ')}
    </p>
  ) : null;

/** The schedule form: a POST with the session's CSRF token; each API error beside the field it concerns. */
export const PayoutScheduleForm: FC<{
  action: string;
  viewer: Viewer;
  draft: ScheduleDraft;
  errors?: ScheduleErrors;
}> = ({ action, viewer, draft, errors = {} }) => (
  <form method="post" action={action} class="schedule" aria-label="Payout schedule">
    <CsrfField viewer={viewer} />
    <div class="field">
      <label for="schedule-interval">Interval</label>
      <select id="schedule-interval" name="interval" {...described('interval', errors)}>
        {INTERVALS.map((interval) => (
          <option value={interval} selected={interval === draft.interval}>
            {capitalised(interval)}
          </option>
        ))}
      </select>
      <FieldError field="interval" errors={errors} />
    </div>
    <div class="field">
      <label for="schedule-weeklyAnchor">Weekday</label>
      <select
        id="schedule-weeklyAnchor"
        name="weeklyAnchor"
        {...described('weeklyAnchor', errors, 'schedule-weeklyAnchor-help')}
      >
        <option value="">None</option>
        {WEEKDAYS.map((day) => (
          <option value={day} selected={day === draft.weeklyAnchor}>
            {capitalised(day)}
          </option>
        ))}
      </select>
      <span id="schedule-weeklyAnchor-help" class="help">
        Weekly schedules only.
      </span>
      <FieldError field="weeklyAnchor" errors={errors} />
    </div>
    <div class="field">
      <label for="schedule-monthlyAnchor">Day of the month</label>
      <input
        id="schedule-monthlyAnchor"
        name="monthlyAnchor"
        type="number"
        min={1}
        max={31}
        value={draft.monthlyAnchor}
        {...described('monthlyAnchor', errors, 'schedule-monthlyAnchor-help')}
      />
      <span id="schedule-monthlyAnchor-help" class="help">
        Monthly schedules only: 1 to 31 (past a month's end, its last day).
      </span>
      <FieldError field="monthlyAnchor" errors={errors} />
    </div>
    <div class="field">
      <label for="schedule-delayDays">Delay in days</label>
      <input
        id="schedule-delayDays"
        name="delayDays"
        type="number"
        min={0}
        max={30}
        value={draft.delayDays}
        {...described('delayDays', errors, 'schedule-delayDays-help')}
      />
      <span id="schedule-delayDays-help" class="help">
        Business days money waits once available before an automatic payout takes it (0 to 30).
      </span>
      <FieldError field="delayDays" errors={errors} />
    </div>
    <div class="actions">
      <button type="submit">Save schedule</button>
    </div>
  </form>
);
