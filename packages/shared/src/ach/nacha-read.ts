import { DEBIT_CODES, fail, NACHA_RECORD_LENGTH, PADDING_RECORD } from './nacha-fields';

// Reading a NACHA file back: its control record's totals, and what its entries move (nacha.ts writes them).

/** The file control ('9') record's counts and totals. */
export type NachaTotals = {
  batchCount: number;
  /** Entry/addenda count (nacha.ts writes no addenda, so the entry count). */
  entryCount: number;
  entryHash: number;
  /** Cents. */
  totalDebit: number;
  /** Cents. */
  totalCredit: number;
};

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
