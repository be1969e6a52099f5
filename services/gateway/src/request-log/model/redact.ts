import { luhnValid } from '@pps/shared/contract';
import { bracketsAtLeast } from '@pps/shared/http';
import { CARD_FIELDS, CENSOR, isSecretField, SENSITIVE_KEYS } from '@pps/shared/logger';

/**
 * What the request log keeps of a body: secrets replaced by `[redacted]` twice over. By name, with the logger's list
 * (`isSecretField`: card number and code, SSN, EIN, account and routing numbers, keys, tokens, secrets, passwords),
 * so the two never drift; and by shape, in every string and number whatever its field, so a secret sent where no
 * one expected it (a card number in `miscData`, an API key in an invoice) is not kept either:
 *
 * - 12 to 19 digits (in groups parted by spaces or dashes, or not) that pass the Luhn check: a card number;
 * - the platform's own secrets by their prefix: API keys `sk_test_…`/`sk_live_…`, app keys `ak_…`, webhook signing
 *   secrets `whsec_…`, checkout client secrets `cs_secret_…`, console cookies `cs_console_…`, 3-D Secure challenge
 *   links' tokens `tds_…`; and JWTs (`eyJ….….…`), which app tokens are;
 * - an SSN or EIN as written with its dashes (`123-45-6789`, `12-3456789`);
 * - any run of 9 or more digits: an SSN, an EIN or a routing number without dashes, a long account number. Fields
 *   whose digits are figures the platform wrote (amounts in cents, ACH trace numbers) are spared this one rule.
 *
 * A CVC, or an account number of 4 to 8 digits, in a free-text field has no shape that tells it from an invoice
 * number: the names catch them where they belong (docs/decisions.md, The request log).
 */

/** Cents and the platform's own numbers: their digit runs are figures, still checked for card numbers. */
const FIGURE_FIELDS = new Set(
  [
    'amount',
    'gross',
    'net',
    'fee',
    'grossMinusNet',
    'refundableAmount',
    'refundedAmount',
    'capturedAmount',
    'available',
    'pending',
    'inTransit',
    'balance',
    'total',
    'totalDebit',
    'totalCredit',
    'traceNumber',
  ].map((name) => name.toLowerCase()),
);

/** A whole string that is one of our ids, a UUID (an idempotency key) or a timestamp: never a secret, left as it is. */
const HARMLESS =
  /^(?:[a-z]{2,5}_[0-9a-hjkmnp-tv-z]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))$/i;
const PREFIXED = /(?:sk_(?:test|live)_|whsec_|cs_secret_|cs_console_|tds_|(?<![A-Za-z0-9])ak_(?=[\w-]{20}))[\w\-+/=]+/g;
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** Digits, in groups parted by one space or dash: where a card number may be, alone or among other numbers. */
const DIGIT_GROUPS = /\d+(?:[ -]\d+)*/g;
const DASHED_TAX_ID = /(?<!\d)(?:\d{3}-\d{2}-\d{4}|\d{2}-\d{7})(?!\d)/g;
const LONG_DIGITS = /\d{9,}/g;
/**
 * The first look, one test: a string matching none of these holds none of the shapes above (nearly every string of a
 * body: names, ids, URLs, timestamps, amounts), and is left without another.
 */
const SUSPECT =
  /\d{9}|\d(?:[ -]?\d){11}|\d{3}-\d{2}-\d{4}|\d{2}-\d{7}|sk_(?:test|live)_|whsec_|cs_(?:secret|console)_|tds_|ak_|eyJ/;

/**
 * A run of digit groups with every card number in it redacted: each stretch of whole groups holding 12 to 19 digits
 * that pass the Luhn check (`4242 4242 4242 4242` after an invoice number is still found).
 */
function redactCards(run: string): string {
  if (run.length < 12) return run;
  const parts = run.split(/([ -])/);
  const groups = parts.filter((_, index) => index % 2 === 0);
  const card = groups.map(() => false);
  for (let start = 0; start < groups.length; start++) {
    let digits = '';
    for (let end = start; end < groups.length; end++) {
      digits += groups[end];
      if (digits.length > 19) break;
      if (digits.length >= 12 && luhnValid(digits)) card.fill(true, start, end + 1);
    }
  }
  if (!card.includes(true)) return run;
  let redacted = '';
  for (let index = 0; index < groups.length; index++) {
    const joined = index > 0 && card[index] && card[index - 1];
    if (index > 0 && !joined) redacted += parts[index * 2 - 1];
    if (!card[index]) redacted += groups[index];
    else if (!joined) redacted += CENSOR;
  }
  return redacted;
}

/**
 * `text` with every secret shape replaced. `field` names where it was found: a figure's (`amount`…) long digit runs
 * stay.
 */
export function redactText(text: string, field = ''): string {
  if (!SUSPECT.test(text) || HARMLESS.test(text)) return text;
  const figure = FIGURE_FIELDS.has(field.toLowerCase());
  let redacted = text.replace(PREFIXED, CENSOR).replace(JWT, CENSOR).replace(DIGIT_GROUPS, redactCards);
  if (!figure) redacted = redacted.replace(DASHED_TAX_ID, CENSOR).replace(LONG_DIGITS, CENSOR);
  return redacted;
}

/** A number as a secret may be sent (`"miscData": 4242424242424242`): judged by its digits, as text. */
function redactNumber(value: number, field: string): number | string {
  if (value > -1e8 && value < 1e8) return value;
  if (!Number.isSafeInteger(value)) return Number.isInteger(value) ? CENSOR : value;
  const digits = String(Math.abs(value));
  return redactText(digits, field) === digits ? value : CENSOR;
}

/** Field names judged once each (outside a card, where `number` and `code` are secrets): bodies repeat them. */
const secretNames = new Map<string, boolean>();

function isSecretName(field: string, parentKey: string): boolean {
  if (parentKey.length === 4 && parentKey.toLowerCase() === 'card') return isSecretField(field, 'card');
  let secret = secretNames.get(field);
  if (secret === undefined) {
    // Names come from clients: the memo is bounded.
    if (secretNames.size >= 10_000) secretNames.clear();
    secret = isSecretField(field, '');
    secretNames.set(field, secret);
  }
  return secret;
}

/** Deeper than any body of this API (requests are refused past 32 levels); past it a value is not walked but cut. */
const MAX_DEPTH = 64;

/** Replacements made so far: a body whose walk made none is kept as it came, not serialized again. */
let replacements = 0;

/**
 * `value` (a parsed JSON body, changed in place: it is the log's own copy) with every secret redacted by its
 * field's name and by its shape; object keys are judged by shape too.
 */
export function redactJson(value: unknown, key = '', parentKey = '', depth = 0): unknown {
  const redacted = redactValue(value, key, parentKey, depth);
  if (redacted !== value) replacements++;
  return redacted;
}

function redactValue(value: unknown, key: string, parentKey: string, depth: number): unknown {
  if (typeof value === 'string') return redactText(value, key);
  if (typeof value === 'number') return redactNumber(value, key);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return CENSOR;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      value[index] = redactJson(value[index], key, parentKey, depth + 1);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  let renamed: string[] | undefined;
  for (const field in record) {
    const item = record[field];
    if (isSecretName(field, key)) {
      record[field] = CENSOR;
      replacements++;
    } else {
      record[field] = redactJson(item, field, key, depth + 1);
    }
    if (SUSPECT.test(field)) {
      renamed ??= [];
      renamed.push(field);
    }
  }
  // A key with a secret's shape is renamed after the walk, not while `for … in` goes over the keys.
  for (const field of renamed ?? []) {
    const safe = redactText(field);
    if (safe === field) continue;
    record[safe] = record[field];
    delete record[field];
    replacements++;
  }
  return record;
}

/**
 * A JSON body as the log keeps it: its text with every secret redacted, and the parsed (redacted) value; undefined
 * when the text is not JSON. `ours`: the platform wrote the text (an answer, made by `JSON.stringify`), so with
 * nothing to redact it is kept as it is, not serialized again. A client's text is always serialized again: a key it
 * sent twice is parsed as the last one, and the first, never walked, must not be kept. (Reading the text for secrets
 * without parsing it was tried, to skip the parse: one regex pass over a payment's answer cost more than parsing it.
 * An answer is read as text first all the same, by separate scans that each cost far less (`answerHoldsNothingToRedact`):
 * nearly every answer passes them, and is kept with neither parse nor walk.) The parsed value is undefined for an
 * answer kept that way.
 */
export function redactBody(text: string, options: { ours: boolean }): { text: string; value: unknown } | undefined {
  if (options.ours && answerHoldsNothingToRedact(text)) return { text, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const before = replacements;
  value = redactJson(value);
  return { text: options.ours && replacements === before ? text : JSON.stringify(value), value };
}

/** A secret's name as a key of JSON text (`"token":`), compared without case as `isSecretField` compares them. */
const escapeName = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SECRET_NAME_KEY = new RegExp(`"(?:${SENSITIVE_KEYS.map(escapeName).join('|')})":`, 'i');

/**
 * What sends an answer's text to the walk, each test on its own (one regex of them all, a dozen alternatives tried at
 * every character, costs more than parsing the answer; each alone is a scan for a literal or one class): SUSPECT's
 * shapes, found more widely, never less (nine digits parted by single spaces or dashes at most, which every digit
 * shape of SUSPECT is; its prefixes; `eyJ`), a secret's name as a key, a `\u` escape (a character the text does not
 * show as itself), and an exponent (a number past 1e21, which JSON.stringify writes `1e+21`: no safe integer). A
 * character past ASCII (whose lower case may be an ASCII name's) sends it to the walk too.
 */
const ANSWER_NEEDS_WALK = [
  /\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d/,
  /(?:sk_(?:test|live)|whsec|cs_(?:secret|console)|tds|ak)_/,
  /eyJ/,
  SECRET_NAME_KEY,
  /\\u/,
  /e\+/,
];

/** A card's key, its value an object or array: its members `number` and `code` are secrets there. */
const CARD_KEY = /"card":[{[]/gi;
const CARD_SECRET = new RegExp(`"(?:${[...CARD_FIELDS].join('|')})":`, 'i');

/**
 * Whether an answer the platform wrote holds nothing `redactJson` would replace, read from its text without parsing
 * it: JSON.stringify's text shows every key as `"key":` and every string as itself but for `"`, `\`, control
 * characters (none of which is part of a secret's shape or name) and `\u` escapes (refused). So a text the walk
 * would change matches one of ANSWER_NEEDS_WALK, holds a card whose members include `number` or `code`, or is nested
 * at least MAX_DEPTH deep: each is left to the walk. Whatever is not JSON (a CSV export) is left to the parse, which
 * refuses it.
 */
export function answerHoldsNothingToRedact(text: string): boolean {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return false;
  // Past ASCII: a text of as many bytes as characters is ASCII (and counting them is faster than any regex).
  if (Buffer.byteLength(text) !== text.length) return false;
  for (const needsWalk of ANSWER_NEEDS_WALK) if (needsWalk.test(text)) return false;
  CARD_KEY.lastIndex = 0;
  for (let found = CARD_KEY.exec(text); found; found = CARD_KEY.exec(text)) {
    const open = found.index + found[0].length - 1;
    if (CARD_SECRET.test(text.slice(open, closingOf(text, open) + 1))) return false;
  }
  return nestedLessThan(text, MAX_DEPTH);
}

/** Where the object or array opened at `open` closes (the text's end when it does not), strings skipped. */
function closingOf(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = stringEnd(text, at);
    else if (code === 0x7b || code === 0x5b) depth++;
    else if ((code === 0x7d || code === 0x5d) && --depth === 0) return at;
  }
  return text.length - 1;
}

/** The closing quote of the string opened at `quote`. */
function stringEnd(text: string, quote: number): number {
  for (let at = quote + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x22) return at;
  }
  return text.length;
}

/**
 * Whether the text's objects and arrays nest less than `limit` deep. Counted at once when it holds fewer brackets
 * than that (nearly every answer: a payment has about ten); else walked, strings skipped.
 */
function nestedLessThan(text: string, limit: number): boolean {
  if (!bracketsAtLeast(text, limit)) return true;
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = stringEnd(text, at);
    else if ((code === 0x7b || code === 0x5b) && ++depth >= limit) return false;
    else if (code === 0x7d || code === 0x5d) depth--;
  }
  return true;
}
