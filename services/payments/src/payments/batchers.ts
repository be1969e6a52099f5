import { Admission } from '@pps/shared/db';
import type { ServiceDeps } from '@pps/shared/http';
import type { Processor } from '../processor/processor';
import { createDataCipher } from '../tokens/tokens.repository';
import type { PaymentDeps } from './api/payments.usecases';
import { operationsCommitter } from './child-operations/group-commit';
import { claimsCommitter } from './idempotency/claims';
import { claimsInsertPart } from './model/payments.repository';
import { chargeReader } from './new/charge-card.usecases';
import { outcomeRecorder } from './new/record-outcomes';

/**
 * The batchers of one process's payment write path (docs/design.md, The payment write path), each a group commit:
 * a new payment's card reads, its phase-1 claims and phase-3 outcomes (`new/`), and the operations on existing
 * payments (`child-operations/group-commit.ts`), each batching concurrent requests into one transaction.
 */
export function paymentBatchers(deps: ServiceDeps & { processor: Processor }): PaymentDeps {
  const { config, db, metrics } = deps;
  const groupCommit = {
    maxBatch: config.GROUP_COMMIT_MAX_BATCH,
    maxWaitMs: config.GROUP_COMMIT_WAIT_MS,
    maxInFlight: config.GROUP_COMMIT_MAX_IN_FLIGHT,
  };
  const batched = (phase: 'claim' | 'outcome' | 'operation') => ({
    ...groupCommit,
    onBatch: (size: number) => metrics?.groupCommitBatch.observe({ phase }, size),
  });
  const cipher = createDataCipher(config);
  return {
    processor: deps.processor,
    cipher,
    admission: new Admission(config.PAYMENT_ADMISSION_LIMIT),
    reads: chargeReader(db, cipher, groupCommit),
    claims: claimsCommitter(db, claimsInsertPart, batched('claim')),
    outcomes: outcomeRecorder(deps, batched('outcome')),
    operations: operationsCommitter(db, batched('operation')),
  };
}
