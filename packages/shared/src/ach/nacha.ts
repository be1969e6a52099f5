import { abaChecksumValid } from '../banking/routing-number';
import { calendarDateParts } from '../clock/calendar-date';

/**
 * A NACHA (ACH) file writer: one file of fixed-width 94-character records, blocked by 10
 * (NACHA Operating Rules, Appendix One). Pure: the same input always gives the same text.
 * Amounts are integer cents; every count and total is checked against its field's width and
 * refused (RangeError) rather than truncated, except the entry hashes, which the rules truncate.
 */

/** 27 debit checking, 37 debit savings, 22 credit checking, 32 credit savings. */
export type NachaTransactionCode = '27' | '37' | '22' | '32';
export type NachaSecCode = 'WEB' | 'PPD' | 'CCD' | 'TEL';

export type NachaEntry = {
  transactionCode: NachaTransactionCode;
  /** 9 digits: the 8-digit RDFI id and its check digit; must pass the ABA checksum. */
  routingNumber: string;
  /** 1 to 17 digits. */
  accountNumber: string;
  /** Integer cents, 1 ≤ amount < 10^10. */
  amount: number;
  /** Up to 15 characters after clean-up (uppercased; may be empty); longer is refused, never cut. */
  individualId: string;
  /** Cleaned up, then cut to 22 characters; must not be empty. */
  individualName: string;
  /** WEB and TEL entries: the Payment Type Code in the discretionary field, `S` single or `R` recurring. */
  paymentTypeCode?: 'S' | 'R';
};

export type NachaBatch = {
  /** Cleaned up, then cut to 16 characters; must not be empty. */
  companyName: string;
  /** Exactly 10 characters, e.g. '1' + a 9-digit EIN. */
  companyId: string;
  secCode: NachaSecCode;
  /** 1 to 10 characters after clean-up, e.g. 'PAYMENT' or 'REFUND'; longer is refused. */
  entryDescription: string;
  /** 'YYYY-MM-DD'. */
  effectiveEntryDate: string;
  /** At least one entry. */
  entries: NachaEntry[];
};

export type NachaFileInput = {
  /** 9-digit routing number of the receiving point; written as ' ' + 9 digits. */
  immediateDestination: string;
  /** 9 digits (written ' ' + 9 digits) or exactly 10 characters (written as given). */
  immediateOrigin: string;
  /** Cleaned up, then cut to 23 characters; may be empty. */
  destinationName: string;
  /** Cleaned up, then cut to 23 characters; may be empty. */
  originName: string;
  /** File creation date and time, written as YYMMDD and HHMM in UTC. */
  createdAt: Date;
  /** 'A'–'Z' or '0'–'9'. */
  fileIdModifier: string;
  /** 8-digit ODFI id, used in batch headers, batch controls and trace numbers. */
  originatingDfi: string;
  /** May be empty: a file of header, control and padding is legal. */
  batches: NachaBatch[];
  /**
   * Each entry's trace sequence number (the 7 digits after the ODFI id), in the order of the entries, batch by
   * batch: 1 to 9,999,999 and distinct within the file. The caller draws them (a database sequence), so a trace
   * number is unique across files and this writer stays pure.
   */
  traceSequences: number[];
};

/** The file control ('9') record's counts and totals. */
export type NachaTotals = {
  batchCount: number;
  /** Entry/addenda count (this writer writes no addenda, so the entry count). */
  entryCount: number;
  entryHash: number;
  /** Cents. */
  totalDebit: number;
  /** Cents. */
  totalCredit: number;
};

export const NACHA_RECORD_LENGTH = 94;
export const NACHA_BLOCKING_FACTOR = 10;

const PADDING_RECORD = '9'.repeat(NACHA_RECORD_LENGTH);
const TRANSACTION_CODES: ReadonlySet<string> = new Set<NachaTransactionCode>(['27', '37', '22', '32']);
const DEBIT_CODES: ReadonlySet<string> = new Set<NachaTransactionCode>(['27', '37']);
const SEC_CODES: ReadonlySet<string> = new Set<NachaSecCode>(['WEB', 'PPD', 'CCD', 'TEL']);
const MAX_AMOUNT = 9_999_999_999; // 10-digit entry amount field
const MAX_TOTAL = 999_999_999_999; // 12-digit control total fields
const ENTRY_HASH_MODULUS = 10_000_000_000; // the entry hash keeps its rightmost 10 digits

function fail(field: string, message: string): never {
  throw new RangeError(`${field} ${message}`);
}

/**
 * Text for an alphanumeric field: accents dropped (NFKD), uppercased, anything outside printable
 * ASCII (0x20–0x7E, NACHA's character set) removed, and trimmed. Line breaks can never reach a record.
 */
export function nachaText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
}

/** Left-justified, space-padded; the value must already fit. */
const alpha = (value: string, width: number) => value.padEnd(width, ' ');

/** Right-justified, zero-padded non-negative integer; refused if it does not fit. */
function numeric(value: number, width: number, field: string): string {
  const digits = String(value);
  if (!Number.isSafeInteger(value) || value < 0 || digits.length > width) {
    fail(field, `must be a non-negative integer of at most ${width} digits, got ${value}`);
  }
  return digits.padStart(width, '0');
}

function str(value: unknown, field: string): string {
  if (typeof value !== 'string') fail(field, 'must be a string');
  return value;
}

/** Cleaned text cut to the field width (names). */
function name(value: unknown, width: number, field: string, required: boolean): string {
  const text = nachaText(str(value, field)).slice(0, width).trimEnd();
  if (required && text === '') fail(field, 'must not be empty');
  return alpha(text, width);
}

/** Cleaned text that must fit the field as is (codes and identifiers). */
function code(value: unknown, width: number, field: string, required: boolean): string {
  const text = nachaText(str(value, field));
  if (required && text === '') fail(field, 'must not be empty');
  if (text.length > width) fail(field, `must be at most ${width} characters, got ${text.length}`);
  return alpha(text, width);
}

function routing(value: unknown, field: string): string {
  const text = str(value, field);
  if (!/^\d{9}$/.test(text)) fail(field, 'must be 9 digits');
  if (!abaChecksumValid(text)) fail(field, 'fails the ABA checksum');
  return text;
}

function yymmdd(date: string, field: string): string {
  let parts: { year: number; month: number; day: number };
  try {
    parts = calendarDateParts(str(date, field));
  } catch {
    return fail(field, `must be a calendar date YYYY-MM-DD, got ${date}`);
  }
  return [parts.year % 100, parts.month, parts.day].map((n) => String(n).padStart(2, '0')).join('');
}

function creationStamp(createdAt: Date): { date: string; time: string } {
  if (!(createdAt instanceof Date) || Number.isNaN(createdAt.getTime())) fail('createdAt', 'must be a valid Date');
  const two = (n: number) => String(n).padStart(2, '0');
  return {
    date: two(createdAt.getUTCFullYear() % 100) + two(createdAt.getUTCMonth() + 1) + two(createdAt.getUTCDate()),
    time: two(createdAt.getUTCHours()) + two(createdAt.getUTCMinutes()),
  };
}

/** Exactly 10 uppercase printable ASCII characters, not all spaces (an identifier: never cleaned up or cut). */
function tenCharacters(value: unknown, field: string): string {
  const text = str(value, field);
  if (!/^[\x20-\x7e]{10}$/.test(text) || text !== text.toUpperCase() || text.trim() === '') {
    fail(field, 'must be exactly 10 uppercase printable ASCII characters');
  }
  return text;
}

function immediateOrigin(value: unknown): string {
  const text = str(value, 'immediateOrigin');
  if (/^\d{9}$/.test(text)) return ` ${text}`;
  if (text.length !== 10) fail('immediateOrigin', 'must be 9 digits or exactly 10 characters');
  return tenCharacters(text, 'immediateOrigin');
}

function checkRecord(record: string): string {
  // Every field above is padded or refused to its exact width; this guards the layout itself.
  if (record.length !== NACHA_RECORD_LENGTH) throw new Error(`NACHA record of ${record.length} characters: ${record}`);
  return record;
}

type Running = {
  traceSequences: number[];
  entryCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
  traceNumbers: string[];
};

const MAX_TRACE_SEQUENCE = 9_999_999; // 7-digit trace sequence number

function traceSequence(value: number | undefined, field: string): string {
  if (value === undefined) fail('traceSequences', 'must give one trace sequence number per entry');
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_TRACE_SEQUENCE) {
    fail(field, `must be an integer from 1 to ${MAX_TRACE_SEQUENCE}, got ${value}`);
  }
  return numeric(value, 7, field);
}

function addTotal(total: number, amount: number, field: string): number {
  const sum = total + amount;
  if (sum > MAX_TOTAL) fail(field, `exceeds the 12-digit field (${MAX_TOTAL} cents)`);
  return sum;
}

function writeBatch(batch: NachaBatch, batchNumber: number, odfi: string, file: Running, out: string[]): void {
  const at = `batches[${batchNumber - 1}]`;
  if (batch === null || typeof batch !== 'object') fail(at, 'must be an object');
  const companyName = name(batch.companyName, 16, `${at}.companyName`, true);
  const companyId = tenCharacters(batch.companyId, `${at}.companyId`);
  if (!SEC_CODES.has(batch.secCode)) fail(`${at}.secCode`, `must be one of ${[...SEC_CODES].join(', ')}`);
  const description = code(batch.entryDescription, 10, `${at}.entryDescription`, true);
  const effective = yymmdd(batch.effectiveEntryDate, `${at}.effectiveEntryDate`);
  if (!Array.isArray(batch.entries) || batch.entries.length === 0) fail(`${at}.entries`, 'must not be empty');

  const entryRecords: string[] = [];
  let entryHash = 0;
  let totalDebit = 0;
  let totalCredit = 0;
  batch.entries.forEach((entry, index) => {
    const where = `${at}.entries[${index}]`;
    if (entry === null || typeof entry !== 'object') fail(where, 'must be an object');
    if (!TRANSACTION_CODES.has(entry.transactionCode)) {
      fail(`${where}.transactionCode`, `must be one of ${[...TRANSACTION_CODES].join(', ')}`);
    }
    const rdfi = routing(entry.routingNumber, `${where}.routingNumber`);
    const account = str(entry.accountNumber, `${where}.accountNumber`);
    if (!/^\d{1,17}$/.test(account)) fail(`${where}.accountNumber`, 'must be 1 to 17 digits');
    const { amount } = entry;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || amount > MAX_AMOUNT) {
      fail(`${where}.amount`, `must be an integer number of cents from 1 to ${MAX_AMOUNT}, got ${amount}`);
    }
    const individualId = code(entry.individualId, 15, `${where}.individualId`, false);
    const individualName = name(entry.individualName, 22, `${where}.individualName`, true);

    const next = file.traceNumbers.length;
    const traceNumber = odfi + traceSequence(file.traceSequences[next], `traceSequences[${next}]`);
    file.traceNumbers.push(traceNumber);
    if (DEBIT_CODES.has(entry.transactionCode)) totalDebit = addTotal(totalDebit, amount, `${at} total debit`);
    else totalCredit = addTotal(totalCredit, amount, `${at} total credit`);
    entryHash += Number(rdfi.slice(0, 8));
    entryRecords.push(
      checkRecord(
        '6' +
          entry.transactionCode +
          rdfi + // RDFI id (8) and check digit (1)
          alpha(account, 17) +
          numeric(amount, 10, `${where}.amount`) +
          individualId +
          individualName +
          alpha(entry.paymentTypeCode ?? '', 2) + // discretionary data (Payment Type Code for WEB and TEL)
          '0' + // addenda record indicator
          traceNumber,
      ),
    );
  });

  const debits = totalDebit > 0;
  const credits = totalCredit > 0;
  const serviceClass = debits && credits ? '200' : debits ? '225' : '220';
  const batchHash = entryHash % ENTRY_HASH_MODULUS;
  const batchNo = numeric(batchNumber, 7, 'batch count');
  const entryCount = numeric(entryRecords.length, 6, `${at} entry count`);

  out.push(
    checkRecord(
      '5' +
        serviceClass +
        companyName +
        alpha('', 20) + // company discretionary data
        companyId +
        batch.secCode +
        description +
        alpha('', 6) + // company descriptive date
        effective +
        alpha('', 3) + // settlement date: inserted by the ACH operator
        '1' + // originator status code
        odfi +
        batchNo,
    ),
    ...entryRecords,
    checkRecord(
      '8' +
        serviceClass +
        entryCount +
        numeric(batchHash, 10, 'entry hash') +
        numeric(totalDebit, 12, `${at} total debit`) +
        numeric(totalCredit, 12, `${at} total credit`) +
        companyId +
        alpha('', 19) + // message authentication code
        alpha('', 6) + // reserved
        odfi +
        batchNo,
    ),
  );

  file.entryCount += entryRecords.length;
  file.entryHash = (file.entryHash + batchHash) % ENTRY_HASH_MODULUS;
  file.totalDebit = addTotal(file.totalDebit, totalDebit, 'file total debit');
  file.totalCredit = addTotal(file.totalCredit, totalCredit, 'file total credit');
}

/**
 * The NACHA file for the input: records joined by '\n', ending in '\n', padded with records of
 * 94 '9's to a multiple of 10. Throws a RangeError naming the field for input it cannot write.
 */
export function writeNachaFile(input: NachaFileInput): string {
  return nachaFile(input).content;
}

/**
 * `writeNachaFile`'s text with the trace number of each entry as written (ODFI id and sequence), in the order of
 * the input's entries, batch by batch: what a payout records to be found in the file and in the bank's returns.
 */
export function nachaFile(input: NachaFileInput): { content: string; traceNumbers: string[] } {
  if (input === null || typeof input !== 'object') fail('input', 'must be an object');
  const destination = routing(input.immediateDestination, 'immediateDestination');
  const origin = immediateOrigin(input.immediateOrigin);
  const destinationName = name(input.destinationName, 23, 'destinationName', false);
  const originName = name(input.originName, 23, 'originName', false);
  const { date, time } = creationStamp(input.createdAt);
  const modifier = str(input.fileIdModifier, 'fileIdModifier');
  if (!/^[A-Z0-9]$/.test(modifier)) fail('fileIdModifier', "must be one character 'A'-'Z' or '0'-'9'");
  const odfi = str(input.originatingDfi, 'originatingDfi');
  if (!/^\d{8}$/.test(odfi)) fail('originatingDfi', 'must be 8 digits');
  if (!Array.isArray(input.batches)) fail('batches', 'must be an array');
  if (!Array.isArray(input.traceSequences)) fail('traceSequences', 'must be an array');
  if (new Set(input.traceSequences).size !== input.traceSequences.length) {
    fail('traceSequences', 'must be distinct within the file');
  }

  const records: string[] = [
    checkRecord(
      '1' +
        '01' + // priority code
        ` ${destination}` +
        origin +
        date +
        time +
        modifier +
        '094' + // record size
        '10' + // blocking factor
        '1' + // format code
        destinationName +
        originName +
        alpha('', 8), // reference code
    ),
  ];
  const file: Running = {
    traceSequences: input.traceSequences,
    entryCount: 0,
    entryHash: 0,
    totalDebit: 0,
    totalCredit: 0,
    traceNumbers: [],
  };
  input.batches.forEach((batch, index) => {
    writeBatch(batch, index + 1, odfi, file, records);
  });

  const recordCount = records.length + 1; // with the file control record
  const blockCount = Math.ceil(recordCount / NACHA_BLOCKING_FACTOR);
  records.push(
    checkRecord(
      '9' +
        numeric(input.batches.length, 6, 'batch count') +
        numeric(blockCount, 6, 'block count') +
        numeric(file.entryCount, 8, 'entry count of the file') +
        numeric(file.entryHash, 10, 'entry hash') +
        numeric(file.totalDebit, 12, 'file total debit') +
        numeric(file.totalCredit, 12, 'file total credit') +
        alpha('', 39), // reserved
    ),
  );
  if (file.traceNumbers.length !== input.traceSequences.length) {
    fail(
      'traceSequences',
      `must give one trace sequence number per entry: ${file.entryCount} entries, got ${input.traceSequences.length}`,
    );
  }
  while (records.length % NACHA_BLOCKING_FACTOR !== 0) records.push(PADDING_RECORD);
  return { content: `${records.join('\n')}\n`, traceNumbers: file.traceNumbers };
}

/** The counts and totals of a NACHA file's control ('9') record; a RangeError if there is none. */
export function readNachaTotals(file: string): NachaTotals {
  const control = file
    .split(/\r?\n/)
    .find((line) => line.length === NACHA_RECORD_LENGTH && line[0] === '9' && line !== PADDING_RECORD);
  if (control === undefined) fail('file', 'has no file control record');
  const field = (start: number, width: number, label: string): number => {
    const digits = control.slice(start, start + width);
    if (!/^\d+$/.test(digits)) fail('file', `control record ${label} is not numeric: '${digits}'`);
    return Number(digits);
  };
  return {
    batchCount: field(1, 6, 'batch count'),
    entryCount: field(13, 8, 'entry/addenda count'),
    entryHash: field(21, 10, 'entry hash'),
    totalDebit: field(31, 12, 'total debit'),
    totalCredit: field(43, 12, 'total credit'),
  };
}

/**
 * An entry of a NACHA file as the operator's console shows it: what it moves and the trace number a bank's return
 * names it by. Deliberately without the receiver's routing and account numbers or name: a page of them needs none.
 */
export type NachaEntrySummary = {
  transactionCode: string;
  direction: 'debit' | 'credit';
  /** Cents. */
  amount: number;
  traceNumber: string;
};

/**
 * The entry detail ('6') records of a NACHA file, in file order: transaction code (positions 2–3), amount (30–39)
 * and trace number (80–94), and nothing else of the record. A RangeError for a record whose amount is not digits.
 */
export function readNachaEntries(file: string): NachaEntrySummary[] {
  return file
    .split(/\r?\n/)
    .filter((line) => line.length === NACHA_RECORD_LENGTH && line[0] === '6')
    .map((line) => {
      const amount = line.slice(29, 39);
      if (!/^\d{10}$/.test(amount)) fail('file', `entry amount is not numeric: '${amount}'`);
      const transactionCode = line.slice(1, 3);
      return {
        transactionCode,
        direction: DEBIT_CODES.has(transactionCode) ? 'debit' : 'credit',
        amount: Number(amount),
        traceNumber: line.slice(79, 94),
      };
    });
}
