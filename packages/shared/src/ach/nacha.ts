import {
  addTotal,
  alpha,
  checkRecord,
  code,
  creationStamp,
  DEBIT_CODES,
  fail,
  immediateOrigin,
  NACHA_BLOCKING_FACTOR,
  type NachaTransactionCode,
  name,
  numeric,
  PADDING_RECORD,
  routing,
  str,
  tenCharacters,
  traceSequence,
  yymmdd,
} from './nacha-fields';

export { NACHA_BLOCKING_FACTOR, NACHA_RECORD_LENGTH, type NachaTransactionCode, nachaText } from './nacha-fields';
export * from './nacha-read';

/**
 * A NACHA (ACH) file writer: one file of fixed-width 94-character records, blocked by 10
 * (NACHA Operating Rules, Appendix One). Pure: the same input always gives the same text.
 * Amounts are integer cents; every count and total is checked against its field's width and
 * refused (RangeError) rather than truncated, except the entry hashes, which the rules truncate. Its fields are
 * nacha-fields.ts's; reading a file back is nacha-read.ts's.
 */

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

const TRANSACTION_CODES: ReadonlySet<string> = new Set<NachaTransactionCode>(['27', '37', '22', '32']);
const SEC_CODES: ReadonlySet<string> = new Set<NachaSecCode>(['WEB', 'PPD', 'CCD', 'TEL']);
const MAX_AMOUNT = 9_999_999_999; // 10-digit entry amount field
const ENTRY_HASH_MODULUS = 10_000_000_000; // the entry hash keeps its rightmost 10 digits

type Running = {
  traceSequences: number[];
  entryCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
  traceNumbers: string[];
};

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
