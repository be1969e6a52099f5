import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type NachaBatch,
  type NachaEntry,
  type NachaFileInput,
  nachaFile,
  readNachaEntries,
  readNachaTotals,
  writeNachaFile,
} from './nacha';

// ---------------------------------------------------------------------------------------------
// The independent reader: @midlandsbank/node-nacha (a CommonJS fork of @ach/ach, no types).
// Its parser slices each record by the published field widths, trims alphanumeric fields and
// turns numeric ones into numbers; it validates nothing, so the assertions below do the checking.
// It has no TEL layout: TEL entries have PPD's layout (Payment Type Code in the 2-character
// discretionary data field), so the PPD layout is registered for TEL before parsing.
// ---------------------------------------------------------------------------------------------
type ParsedEntry = {
  transactionCode: string;
  receivingDFIIdentification: number;
  checkDigit: number;
  dfiAccount: string;
  amount: number;
  identificationNumber: string;
  receivingCompanyName: string;
  addendaIndicator: string;
  traceNumber: number;
};
type ParsedBatchControl = {
  serviceClassCode: number;
  entryAndAddendaCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
  companyId: string;
  originatingDFIIdentification: string;
  num: number;
};
type ParsedBatch = {
  serviceClassCode: number;
  companyName: string;
  discretionaryData: string;
  companyId: string;
  entryClassCode: string;
  description: string;
  date: string;
  effectiveDate: string;
  settlementDate: string;
  originatorStatusCode: string;
  originatingDFIIdentification: string;
  num: number;
  entries: ParsedEntry[];
  footer: ParsedBatchControl;
};
type ParsedFileControl = {
  batchCount: number;
  blockCount: number;
  entryAndAddendaCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
};
type ParsedFile = {
  file: {
    priority: number;
    destination: string;
    origin: string;
    creationDate: string;
    creationTime: string;
    idModifier: string;
    recordSize: string;
    blockingFactor: string;
    formatCode: string;
    destinationName: string;
    originName: string;
    referenceCode: string;
    footer: ParsedFileControl;
  };
  batches: ParsedBatch[];
};
type Calculated = {
  footer: ParsedFileControl & { lineCount: number };
  batchFooters: Omit<ParsedBatchControl, 'num'>[];
};

const requireCjs = createRequire(import.meta.url);
const nodeNacha = requireCjs('@midlandsbank/node-nacha') as { from(source: string): { data: ParsedFile } };
const nodeNachaFormats = requireCjs('@midlandsbank/node-nacha/lib/transforms/formats') as Record<string, unknown>;
nodeNachaFormats.TEL ??= nodeNachaFormats.PPD;
/** The library's own control-record arithmetic, run over what its parser read. */
const nodeNachaCalculate = requireCjs('@midlandsbank/node-nacha/lib/api/calculate') as (options: {
  ach: ParsedFile;
}) => Calculated;

const parse = (file: string): ParsedFile => nodeNacha.from(file).data;

// ---------------------------------------------------------------------------------------------
// Fixtures and an independent model of what the file must say
// ---------------------------------------------------------------------------------------------
const ROUTING = ['021000021', '011000015', '121000358', '026009593', '071000013'] as const;
const DEBITS = new Set(['27', '37']);
const TEN_DIGIT_MAX = 9_999_999_999;

/** 1-based, inclusive positions, as the NACHA record layouts print them. */
const at = (record: string, from: number, to: number) => record.slice(from - 1, to);

const linesOf = (file: string) => file.slice(0, -1).split('\n');

function entry(overrides: Partial<NachaEntry> = {}): NachaEntry {
  return {
    transactionCode: '27',
    routingNumber: '021000021',
    accountNumber: '123456789',
    amount: 12_345,
    individualId: 'PAY_01J9Z3',
    individualName: 'Ada Lovelace',
    ...overrides,
  };
}

function batch(overrides: Partial<NachaBatch> = {}): NachaBatch {
  return {
    companyName: 'Acme Payments',
    companyId: '1123456789',
    secCode: 'WEB',
    entryDescription: 'PAYMENT',
    effectiveEntryDate: '2026-11-24',
    entries: [entry()],
    ...overrides,
  };
}

/** Trace sequence numbers for every entry of these batches: distinct, far from 1 and not in entry order. */
const tracesFor = (batches: unknown) =>
  Array.from(
    { length: Array.isArray(batches) ? batches.flatMap((b: NachaBatch) => b.entries ?? []).length : 0 },
    (_, i) => (i % 2 === 0 ? 4_200_000 + i : 9_999_999 - i),
  );

function fileInput(overrides: Partial<NachaFileInput> = {}): NachaFileInput {
  const batches = 'batches' in overrides ? overrides.batches : [batch()];
  return {
    immediateDestination: '121000358',
    immediateOrigin: '1123456789',
    destinationName: 'Bank of Example',
    originName: 'Acme Payments Inc',
    createdAt: new Date('2026-11-23T16:05:59.999Z'),
    fileIdModifier: 'A',
    originatingDfi: '02600959',
    batches: [batch()],
    traceSequences: tracesFor(batches),
    ...overrides,
  };
}

const example: NachaFileInput = fileInput({
  batches: [
    batch({
      entries: [
        entry({ transactionCode: '27', routingNumber: '021000021', accountNumber: '12345678901234567', amount: 1 }),
        entry({ transactionCode: '37', routingNumber: '011000015', accountNumber: '42', amount: 9_999_999_999 }),
        entry({ transactionCode: '27', routingNumber: '121000358', amount: 250_00, individualId: '' }),
      ],
    }),
    batch({
      secCode: 'PPD',
      entryDescription: 'REFUND',
      effectiveEntryDate: '2027-01-04',
      entries: [
        entry({ transactionCode: '22', routingNumber: '026009593', amount: 1_999 }),
        entry({ transactionCode: '32', routingNumber: '071000013', amount: 500 }),
      ],
    }),
    batch({
      secCode: 'CCD',
      companyName: 'Acme Corporate',
      companyId: '9876543210',
      entries: [
        entry({ transactionCode: '22', routingNumber: '071000013', amount: 700 }),
        entry({ transactionCode: '37', routingNumber: '026009593', amount: 300 }),
      ],
    }),
    batch({ secCode: 'TEL', entries: [entry({ transactionCode: '27', amount: 4_200 })] }),
  ],
});

type Expected = { entryCount: number; entryHash: number; totalDebit: number; totalCredit: number };

/** Totals computed straight from the input, with nothing from the writer. */
function expectedTotals(entries: NachaEntry[]): Expected {
  let entryHash = 0n;
  let totalDebit = 0n;
  let totalCredit = 0n;
  for (const e of entries) {
    entryHash += BigInt(e.routingNumber.slice(0, 8));
    if (DEBITS.has(e.transactionCode)) totalDebit += BigInt(e.amount);
    else totalCredit += BigInt(e.amount);
  }
  return {
    entryCount: entries.length,
    entryHash: Number(entryHash % 10_000_000_000n),
    totalDebit: Number(totalDebit),
    totalCredit: Number(totalCredit),
  };
}

function expectedServiceClass(entries: NachaEntry[]): number {
  const debits = entries.some((e) => DEBITS.has(e.transactionCode));
  const credits = entries.some((e) => !DEBITS.has(e.transactionCode));
  return debits && credits ? 200 : debits ? 225 : 220;
}

/** What an alphanumeric field should read back as (the parser trims): uppercased, then cut. */
const cleaned = (text: string, width: number) => text.toUpperCase().trim().slice(0, width).trim();

function yymmdd(date: string): string {
  return date.slice(2, 4) + date.slice(5, 7) + date.slice(8, 10);
}

/** The file must have the exact structure, totals and field values of the input, as the parser reads it. */
function expectParserAgrees(input: NachaFileInput, text: string): void {
  const parsed = parse(text);
  const all = input.batches.flatMap((b) => b.entries);
  const file = expectedTotals(all);
  const recordCount = 2 + 2 * input.batches.length + all.length;

  expect(parsed.file).toMatchObject({
    priority: 1,
    destination: ` ${input.immediateDestination}`,
    origin: input.immediateOrigin.length === 9 ? ` ${input.immediateOrigin}` : input.immediateOrigin,
    creationDate: yymmdd(input.createdAt.toISOString()),
    creationTime: input.createdAt.toISOString().slice(11, 16).replace(':', ''),
    idModifier: input.fileIdModifier,
    recordSize: '094',
    blockingFactor: '10',
    formatCode: '1',
    destinationName: cleaned(input.destinationName, 23),
    originName: cleaned(input.originName, 23),
    referenceCode: '',
  });
  expect(parsed.file.footer).toEqual({
    recordType: '9',
    batchCount: input.batches.length,
    blockCount: Math.ceil(recordCount / 10),
    entryAndAddendaCount: file.entryCount,
    entryHash: file.entryHash,
    totalDebit: file.totalDebit,
    totalCredit: file.totalCredit,
    reserved: '',
  });

  expect(parsed.batches).toHaveLength(input.batches.length);
  let index = 0;
  input.batches.forEach((b, i) => {
    const got = parsed.batches[i]!;
    const totals = expectedTotals(b.entries);
    const serviceClassCode = expectedServiceClass(b.entries);
    expect(got).toMatchObject({
      serviceClassCode,
      companyName: cleaned(b.companyName, 16),
      discretionaryData: '',
      companyId: b.companyId,
      entryClassCode: b.secCode,
      description: b.entryDescription.toUpperCase(),
      date: '',
      effectiveDate: yymmdd(b.effectiveEntryDate),
      settlementDate: '',
      originatorStatusCode: '1',
      originatingDFIIdentification: input.originatingDfi,
      num: i + 1,
    });
    expect(got.footer).toEqual({
      recordType: '8',
      serviceClassCode,
      entryAndAddendaCount: totals.entryCount,
      entryHash: totals.entryHash,
      totalDebit: totals.totalDebit,
      totalCredit: totals.totalCredit,
      companyId: b.companyId,
      messageAuthenticationCode: '',
      reserved: '',
      originatingDFIIdentification: input.originatingDfi,
      num: i + 1,
    });
    expect(got.entries).toHaveLength(b.entries.length);
    b.entries.forEach((e, j) => {
      const sequence = input.traceSequences[index++]!;
      const read = got.entries[j]!;
      expect(read).toMatchObject({
        transactionCode: e.transactionCode,
        receivingDFIIdentification: Number(e.routingNumber.slice(0, 8)),
        checkDigit: Number(e.routingNumber[8]),
        dfiAccount: e.accountNumber,
        amount: e.amount,
        identificationNumber: cleaned(e.individualId, 15),
        receivingCompanyName: cleaned(e.individualName, 22),
        addendaIndicator: '0',
        traceNumber: Number(input.originatingDfi + String(sequence).padStart(7, '0')),
      });
      // The 8-digit RDFI id keeps its leading zeros in the record (the parser reads it as a number).
      expect(String(read.receivingDFIIdentification).padStart(8, '0') + read.checkDigit).toBe(e.routingNumber);
    });
  });

  // The library's own arithmetic over what it read agrees with the control records.
  const calculated = nodeNachaCalculate({ ach: parsed });
  calculated.batchFooters.forEach((footer, i) => {
    expect(footer).toMatchObject({
      entryAndAddendaCount: parsed.batches[i]!.footer.entryAndAddendaCount,
      entryHash: parsed.batches[i]!.footer.entryHash,
      totalDebit: parsed.batches[i]!.footer.totalDebit,
      totalCredit: parsed.batches[i]!.footer.totalCredit,
    });
  });
  expect(calculated.footer).toMatchObject({
    batchCount: parsed.file.footer.batchCount,
    blockCount: parsed.file.footer.blockCount,
    entryAndAddendaCount: parsed.file.footer.entryAndAddendaCount,
    entryHash: parsed.file.footer.entryHash,
    totalDebit: parsed.file.footer.totalDebit,
    totalCredit: parsed.file.footer.totalCredit,
    lineCount: recordCount,
  });
}

function expectWellFormed(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  const lines = linesOf(text);
  expect(lines.length % 10).toBe(0);
  for (const line of lines) {
    expect(line).toHaveLength(94);
    expect(line).toMatch(/^[\x20-\x7e]{94}$/);
  }
  const control = lines.findIndex((line) => line[0] === '9');
  expect(lines.slice(control + 1).every((line) => line === '9'.repeat(94))).toBe(true);
  expect(control + 1 > lines.length - 10).toBe(true); // padding is less than one block
}

// ---------------------------------------------------------------------------------------------
describe('writeNachaFile', () => {
  it('writes 94-character records, ending in a newline, padded with 9s to a multiple of 10', () => {
    const text = writeNachaFile(example);
    expectWellFormed(text);
    const lines = linesOf(text);
    // 1 header + 4 × (header + control) + 8 entries + 1 control = 18 records, padded to 20.
    expect(lines).toHaveLength(20);
    expect(lines.map((line) => line[0]).join('')).toBe('1' + '56668' + '5668' + '5668' + '568' + '9' + '99');
  });

  it('adds no padding when the records already fill whole blocks', () => {
    // 1 header + 1 batch header + 6 entries + 1 batch control + 1 file control = 10 records.
    const text = writeNachaFile(fileInput({ batches: [batch({ entries: Array.from({ length: 6 }, () => entry()) })] }));
    const lines = linesOf(text);
    expect(lines).toHaveLength(10);
    expect(lines[9]![0]).toBe('9');
    expect(lines[9]).not.toBe('9'.repeat(94));
    expect(at(lines[9]!, 8, 13)).toBe('000001'); // block count
  });

  it('writes every field of every record at its NACHA position', () => {
    const lines = linesOf(writeNachaFile(fileInput({ traceSequences: [1] })));
    const [header, batchHeader, detail, batchControl, fileControl] = lines as [string, string, string, string, string];

    expect(at(header, 1, 1)).toBe('1');
    expect(at(header, 2, 3)).toBe('01');
    expect(at(header, 4, 13)).toBe(' 121000358');
    expect(at(header, 14, 23)).toBe('1123456789');
    expect(at(header, 24, 29)).toBe('261123'); // UTC date
    expect(at(header, 30, 33)).toBe('1605'); // UTC time, minutes truncated
    expect(at(header, 34, 34)).toBe('A');
    expect(at(header, 35, 37)).toBe('094');
    expect(at(header, 38, 39)).toBe('10');
    expect(at(header, 40, 40)).toBe('1');
    expect(at(header, 41, 63)).toBe('BANK OF EXAMPLE        ');
    expect(at(header, 64, 86)).toBe('ACME PAYMENTS INC      ');
    expect(at(header, 87, 94)).toBe('        ');

    expect(at(batchHeader, 1, 1)).toBe('5');
    expect(at(batchHeader, 2, 4)).toBe('225');
    expect(at(batchHeader, 5, 20)).toBe('ACME PAYMENTS   ');
    expect(at(batchHeader, 21, 40)).toBe(' '.repeat(20));
    expect(at(batchHeader, 41, 50)).toBe('1123456789');
    expect(at(batchHeader, 51, 53)).toBe('WEB');
    expect(at(batchHeader, 54, 63)).toBe('PAYMENT   ');
    expect(at(batchHeader, 64, 69)).toBe('      ');
    expect(at(batchHeader, 70, 75)).toBe('261124');
    expect(at(batchHeader, 76, 78)).toBe('   ');
    expect(at(batchHeader, 79, 79)).toBe('1');
    expect(at(batchHeader, 80, 87)).toBe('02600959');
    expect(at(batchHeader, 88, 94)).toBe('0000001');

    expect(at(detail, 1, 1)).toBe('6');
    expect(at(detail, 2, 3)).toBe('27');
    expect(at(detail, 4, 11)).toBe('02100002');
    expect(at(detail, 12, 12)).toBe('1');
    expect(at(detail, 13, 29)).toBe('123456789        ');
    expect(at(detail, 30, 39)).toBe('0000012345');
    expect(at(detail, 40, 54)).toBe('PAY_01J9Z3     ');
    expect(at(detail, 55, 76)).toBe('ADA LOVELACE          ');
    expect(at(detail, 77, 78)).toBe('  ');
    expect(at(detail, 79, 79)).toBe('0');
    expect(at(detail, 80, 94)).toBe('026009590000001');

    expect(at(batchControl, 1, 1)).toBe('8');
    expect(at(batchControl, 2, 4)).toBe('225');
    expect(at(batchControl, 5, 10)).toBe('000001');
    expect(at(batchControl, 11, 20)).toBe('0002100002');
    expect(at(batchControl, 21, 32)).toBe('000000012345');
    expect(at(batchControl, 33, 44)).toBe('000000000000');
    expect(at(batchControl, 45, 54)).toBe('1123456789');
    expect(at(batchControl, 55, 73)).toBe(' '.repeat(19));
    expect(at(batchControl, 74, 79)).toBe(' '.repeat(6));
    expect(at(batchControl, 80, 87)).toBe('02600959');
    expect(at(batchControl, 88, 94)).toBe('0000001');

    expect(at(fileControl, 1, 1)).toBe('9');
    expect(at(fileControl, 2, 7)).toBe('000001');
    expect(at(fileControl, 8, 13)).toBe('000001');
    expect(at(fileControl, 14, 21)).toBe('00000001');
    expect(at(fileControl, 22, 31)).toBe('0002100002');
    expect(at(fileControl, 32, 43)).toBe('000000012345');
    expect(at(fileControl, 44, 55)).toBe('000000000000');
    expect(at(fileControl, 56, 94)).toBe(' '.repeat(39));
  });

  it('writes batch and file control totals, counts and entry hashes that match the input', () => {
    const text = writeNachaFile(example);
    const lines = linesOf(text);
    const batchControls = lines.filter((line) => line[0] === '8');
    const batchHeaders = lines.filter((line) => line[0] === '5');
    expect(batchControls).toHaveLength(example.batches.length);

    example.batches.forEach((b, i) => {
      const expected = expectedTotals(b.entries);
      const control = batchControls[i]!;
      const serviceClass = String(expectedServiceClass(b.entries));
      expect(at(batchHeaders[i]!, 2, 4)).toBe(serviceClass);
      expect(at(control, 2, 4)).toBe(serviceClass);
      expect(Number(at(control, 5, 10))).toBe(expected.entryCount);
      expect(Number(at(control, 11, 20))).toBe(expected.entryHash);
      expect(Number(at(control, 21, 32))).toBe(expected.totalDebit);
      expect(Number(at(control, 33, 44))).toBe(expected.totalCredit);
      expect(at(control, 88, 94)).toBe(String(i + 1).padStart(7, '0'));
    });
    expect(batchHeaders.map((line) => at(line, 2, 4))).toEqual(['225', '220', '200', '225']);

    const all = expectedTotals(example.batches.flatMap((b) => b.entries));
    expect(all.totalDebit).toBe(1 + 9_999_999_999 + 250_00 + 300 + 4_200);
    expect(all.totalCredit).toBe(1_999 + 500 + 700);
    expect(readNachaTotals(text)).toEqual({
      batchCount: 4,
      entryCount: 8,
      entryHash: all.entryHash,
      totalDebit: all.totalDebit,
      totalCredit: all.totalCredit,
    });
    expect(Number(at(lines.find((line) => line[0] === '9')!, 8, 13))).toBe(2); // 18 records → 2 blocks
  });

  it('writes each entry the trace sequence number it was given, in the order of the entries, batch by batch', () => {
    const traces = linesOf(writeNachaFile(example))
      .filter((line) => line[0] === '6')
      .map((line) => at(line, 80, 94));
    expect(traces).toEqual(example.traceSequences.map((n) => `02600959${String(n).padStart(7, '0')}`));
    expect(traces[0]).toBe('026009594200000');
    expect(traces[1]).toBe('026009599999998');
    // nachaFile returns them as written, in the order of the input's entries, with the same text.
    expect(nachaFile(example)).toEqual({ content: writeNachaFile(example), traceNumbers: traces });
  });

  it('keeps the rightmost 10 digits of an entry hash that overflows', () => {
    // 1000 × 12100035 = 12,100,035,000 → 2,100,035,000.
    const entries = Array.from({ length: 1000 }, () => entry({ routingNumber: '121000358', amount: 1 }));
    const text = writeNachaFile(fileInput({ batches: [batch({ entries }), batch({ entries: [entry()] })] }));
    const control = linesOf(text).find((line) => line[0] === '8')!;
    expect(at(control, 11, 20)).toBe('2100035000');
    // File hash: 2,100,035,000 + 2,100,002 (021000021) — the sum of the batch hashes, still 10 digits.
    expect(readNachaTotals(text).entryHash).toBe(2_102_135_002);
    expectParserAgrees(fileInput({ batches: [batch({ entries }), batch({ entries: [entry()] })] }), text);
  });

  it('writes a file of no batches: header, control and padding', () => {
    const text = writeNachaFile(fileInput({ batches: [] }));
    expectWellFormed(text);
    const lines = linesOf(text);
    expect(lines).toHaveLength(10);
    expect(lines[0]![0]).toBe('1');
    expect(lines[1]).toBe(`9000000000001${'0'.repeat(8 + 10 + 12 + 12)}${' '.repeat(39)}`);
    expect(lines.slice(2).every((line) => line === '9'.repeat(94))).toBe(true);
    expect(readNachaTotals(text)).toEqual({
      batchCount: 0,
      entryCount: 0,
      entryHash: 0,
      totalDebit: 0,
      totalCredit: 0,
    });
    expect(parse(text).batches).toEqual([]);
    expect(parse(text).file.footer.batchCount).toBe(0);
  });

  it('uppercases text, drops accents and anything outside printable ASCII, and cuts names to their field', () => {
    const text = writeNachaFile(
      fileInput({
        destinationName: 'Banque Générale du Nord-Est SA', // 30 characters
        originName: 'Acme\nPayments\t™',
        batches: [
          batch({
            companyName: 'Société Générale Café',
            entryDescription: 'refund',
            entries: [entry({ individualName: '  Zoë O’Brien-Straße\r\n the Third ', individualId: 'pay_01j9z3' })],
          }),
        ],
      }),
    );
    expectWellFormed(text);
    const [header, batchHeader, detail] = linesOf(text) as [string, string, string];
    expect(at(header, 41, 63)).toBe('BANQUE GENERALE DU NORD');
    expect(at(header, 64, 86)).toBe('ACMEPAYMENTSTM         ');
    expect(at(batchHeader, 5, 20)).toBe('SOCIETE GENERALE');
    expect(at(batchHeader, 54, 63)).toBe('REFUND    ');
    expect(at(detail, 40, 54)).toBe('PAY_01J9Z3     ');
    expect(at(detail, 55, 76)).toBe('ZOE OBRIEN-STRASSE THE');
  });

  it('is deterministic', () => {
    expect(writeNachaFile(example)).toBe(writeNachaFile(structuredClone(example)));
  });
});

describe('the published parser (@midlandsbank/node-nacha) reads back the input', () => {
  it('for a file of WEB, PPD, CCD and TEL batches of debits, credits and both', () => {
    expectParserAgrees(example, writeNachaFile(example));
  });

  it('for a 9-digit immediate origin, written as a space and the routing number', () => {
    const input = fileInput({ immediateOrigin: '026009593' });
    const text = writeNachaFile(input);
    expect(at(text, 14, 23)).toBe(' 026009593');
    expectParserAgrees(input, text);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------
const printable = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });
const amountArb = fc.oneof(
  fc.integer({ min: 1, max: 100_000 }),
  fc
    .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99_999 }))
    .map(([high, low]) => high * 100_000 + low)
    .filter((cents) => cents > 0),
  fc.constant(TEN_DIGIT_MAX),
);
const dateArb = (min: string, max: string) => fc.date({ min: new Date(min), max: new Date(max), noInvalidDate: true });

const entryArb: fc.Arbitrary<NachaEntry> = fc.record({
  transactionCode: fc.constantFrom('27', '37', '22', '32'),
  routingNumber: fc.constantFrom(...ROUTING),
  accountNumber: fc.stringMatching(/^\d{1,17}$/),
  amount: amountArb,
  individualId: printable(15),
  individualName: printable(30).filter((name) => name.trim() !== ''),
});

const batchArb: fc.Arbitrary<NachaBatch> = fc.record({
  companyName: printable(20).filter((name) => name.trim() !== ''),
  companyId: fc.stringMatching(/^[19]\d{9}$/),
  secCode: fc.constantFrom('WEB', 'PPD', 'CCD', 'TEL'),
  entryDescription: fc.constantFrom('PAYMENT', 'REFUND', 'SETTLEMENT', 'Payout'),
  effectiveEntryDate: dateArb('2000-01-01', '2099-12-31').map((date) => date.toISOString().slice(0, 10)),
  entries: fc.array(entryArb, { minLength: 1, maxLength: 25 }),
});

const fileArb: fc.Arbitrary<NachaFileInput> = fc
  .record({
    immediateDestination: fc.constantFrom(...ROUTING),
    immediateOrigin: fc.oneof(fc.constantFrom(...ROUTING), fc.stringMatching(/^1\d{9}$/)),
    destinationName: printable(30),
    originName: printable(30),
    createdAt: dateArb('2000-01-01T00:00:00Z', '2099-12-31T23:59:59Z'),
    fileIdModifier: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    originatingDfi: fc.constantFrom(...ROUTING.map((routing) => routing.slice(0, 8))),
    batches: fc.array(batchArb, { maxLength: 6 }),
    traceSequences: fc.constant([]),
  })
  .chain((input) => {
    const entries = input.batches.flatMap((b) => b.entries).length;
    const traceSequences = fc.uniqueArray(fc.integer({ min: 1, max: 9_999_999 }), {
      minLength: entries,
      maxLength: entries,
    });
    return traceSequences.map((sequences) => ({ ...input, traceSequences: sequences }));
  });

describe('writeNachaFile, over random files', () => {
  it('writes 94-character records in whole blocks, with file control totals equal to the sums', () => {
    fc.assert(
      fc.property(fileArb, (input) => {
        const text = writeNachaFile(input);
        expectWellFormed(text);
        const all = input.batches.flatMap((b) => b.entries);
        expect(readNachaTotals(text)).toEqual({ batchCount: input.batches.length, ...expectedTotals(all) });
        const records = 2 + 2 * input.batches.length + all.length;
        expect(linesOf(text)).toHaveLength(Math.ceil(records / 10) * 10);
      }),
      { numRuns: 300 },
    );
  });

  it('reads back, through the published parser, as the input', () => {
    fc.assert(
      fc.property(fileArb, (input) => {
        expectParserAgrees(input, writeNachaFile(input));
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------------
describe('writeNachaFile refuses input it cannot write', () => {
  const withEntry = (overrides: Record<string, unknown>) =>
    fileInput({ batches: [batch({ entries: [entry(), entry(overrides as Partial<NachaEntry>)] })] });
  const withBatch = (overrides: Record<string, unknown>) =>
    fileInput({ batches: [batch(), batch(overrides as Partial<NachaBatch>)] });
  const withFile = (overrides: Record<string, unknown>) => fileInput(overrides as Partial<NachaFileInput>);

  it.each([
    ['a fractional amount', withEntry({ amount: 12.5 }), 'batches[0].entries[1].amount'],
    ['a float that looks like dollars', withEntry({ amount: 0.1 + 0.2 }), 'batches[0].entries[1].amount'],
    ['a zero amount', withEntry({ amount: 0 }), 'batches[0].entries[1].amount'],
    ['a negative amount', withEntry({ amount: -100 }), 'batches[0].entries[1].amount'],
    ['an amount of 10^10 cents', withEntry({ amount: 10_000_000_000 }), 'batches[0].entries[1].amount'],
    ['a NaN amount', withEntry({ amount: Number.NaN }), 'batches[0].entries[1].amount'],
    ['an amount as a string', withEntry({ amount: '100' }), 'batches[0].entries[1].amount'],
    ['an 8-digit routing number', withEntry({ routingNumber: '02100002' }), 'batches[0].entries[1].routingNumber'],
    ['a 10-digit routing number', withEntry({ routingNumber: '0210000210' }), 'batches[0].entries[1].routingNumber'],
    ['a routing number failing the checksum', withEntry({ routingNumber: '021000022' }), 'routingNumber'],
    ['an 18-digit account', withEntry({ accountNumber: '1'.repeat(18) }), 'batches[0].entries[1].accountNumber'],
    ['an empty account', withEntry({ accountNumber: '' }), 'batches[0].entries[1].accountNumber'],
    ['a non-digit account', withEntry({ accountNumber: '1234-5678' }), 'batches[0].entries[1].accountNumber'],
    ['an unknown transaction code', withEntry({ transactionCode: '23' }), 'batches[0].entries[1].transactionCode'],
    ['a 16-character individual id', withEntry({ individualId: 'X'.repeat(16) }), 'entries[1].individualId'],
    ['an empty individual name', withEntry({ individualName: ' \n ' }), 'batches[0].entries[1].individualName'],
    ['a batch of no entries', withBatch({ entries: [] }), 'batches[1].entries'],
    ['a 9-character company id', withBatch({ companyId: '123456789' }), 'batches[1].companyId'],
    ['a lowercase company id', withBatch({ companyId: 'abcdefghij' }), 'batches[1].companyId'],
    ['an empty company name', withBatch({ companyName: '' }), 'batches[1].companyName'],
    ['an unknown SEC code', withBatch({ secCode: 'CTX' }), 'batches[1].secCode'],
    ['an 11-character description', withBatch({ entryDescription: 'SETTLEMENTS' }), 'batches[1].entryDescription'],
    ['an empty description', withBatch({ entryDescription: '' }), 'batches[1].entryDescription'],
    ['an impossible date', withBatch({ effectiveEntryDate: '2026-02-30' }), 'batches[1].effectiveEntryDate'],
    ['a date in another format', withBatch({ effectiveEntryDate: '11/24/2026' }), 'batches[1].effectiveEntryDate'],
    ['a short destination', withFile({ immediateDestination: '12100035' }), 'immediateDestination'],
    ['a bad destination checksum', withFile({ immediateDestination: '121000359' }), 'immediateDestination'],
    ['an 8-character origin', withFile({ immediateOrigin: '12345678' }), 'immediateOrigin'],
    ['an 11-character origin', withFile({ immediateOrigin: '11234567890' }), 'immediateOrigin'],
    ['an invalid creation time', withFile({ createdAt: new Date(Number.NaN) }), 'createdAt'],
    ['a creation time as a string', withFile({ createdAt: '2026-11-23' }), 'createdAt'],
    ['a lowercase modifier', withFile({ fileIdModifier: 'a' }), 'fileIdModifier'],
    ['a two-character modifier', withFile({ fileIdModifier: 'AB' }), 'fileIdModifier'],
    ['a 9-digit ODFI', withFile({ originatingDfi: '026009593' }), 'originatingDfi'],
    ['batches that are not a list', withFile({ batches: undefined }), 'batches'],
    ['no trace sequences', withFile({ traceSequences: undefined }), 'traceSequences'],
    ['a trace sequence short', withFile({ traceSequences: [] }), 'traceSequences'],
    ['a trace sequence too many', withFile({ traceSequences: [1, 2] }), 'traceSequences'],
    [
      'a repeated trace sequence',
      withFile({ batches: [batch({ entries: [entry(), entry()] })], traceSequences: [7, 7] }),
      'traceSequences must be distinct',
    ],
    ['a trace sequence of 0', withFile({ traceSequences: [0] }), 'traceSequences[0]'],
    ['a trace sequence of 8 digits', withFile({ traceSequences: [10_000_000] }), 'traceSequences[0]'],
    ['a fractional trace sequence', withFile({ traceSequences: [1.5] }), 'traceSequences[0]'],
  ])('%s', (_, input, field) => {
    expect(() => writeNachaFile(input)).toThrow(RangeError);
    expect(() => writeNachaFile(input)).toThrow(field);
  });

  it('a batch total over the 12-digit field, rather than writing a wrong total', () => {
    const entries = Array.from({ length: 101 }, () => entry({ amount: TEN_DIGIT_MAX }));
    expect(() => writeNachaFile(fileInput({ batches: [batch({ entries })] }))).toThrow(
      new RangeError('batches[0] total debit exceeds the 12-digit field (999999999999 cents)'),
    );
  });

  it('a file total over the 12-digit field', () => {
    const half = Array.from({ length: 60 }, () => entry({ transactionCode: '22', amount: TEN_DIGIT_MAX }));
    expect(() => writeNachaFile(fileInput({ batches: [batch({ entries: half }), batch({ entries: half })] }))).toThrow(
      new RangeError('file total credit exceeds the 12-digit field (999999999999 cents)'),
    );
  });
});

describe('readNachaTotals', () => {
  it('reads the file control record of a file with CRLF line endings', () => {
    const text = writeNachaFile(example).replaceAll('\n', '\r\n');
    expect(readNachaTotals(text)).toEqual(readNachaTotals(writeNachaFile(example)));
  });

  it('refuses text with no file control record', () => {
    expect(() => readNachaTotals('')).toThrow(RangeError);
    expect(() => readNachaTotals(`${'9'.repeat(94)}\n`)).toThrow('file has no file control record');
  });

  it('refuses a control record whose totals are not digits', () => {
    const text = writeNachaFile(example);
    const control = linesOf(text).find((line) => line[0] === '9')!;
    const broken = `${control.slice(0, 31)}${' '.repeat(12)}${control.slice(43)}`;
    expect(() => readNachaTotals(text.replace(control, broken))).toThrow(RangeError);
  });
});

describe('readNachaEntries', () => {
  it('reads back each entry’s direction, amount and trace number, in order, and no account number', () => {
    fc.assert(
      fc.property(fileArb, (input) => {
        const { content, traceNumbers } = nachaFile(input);
        const entries = input.batches.flatMap((batch) => batch.entries);
        const read = readNachaEntries(content.replaceAll('\n', '\r\n'));
        expect(read).toEqual(
          entries.map((entry, index) => ({
            transactionCode: entry.transactionCode,
            direction: entry.transactionCode === '27' || entry.transactionCode === '37' ? 'debit' : 'credit',
            amount: entry.amount,
            traceNumber: traceNumbers[index],
          })),
        );
      }),
      { numRuns: 100 },
    );
  });
});
