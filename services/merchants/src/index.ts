// What other services use of the merchants service (import from here).

export { changeMerchantStatus, updateMerchantFeatures } from './admin/admin.usecases';
export {
  type BankAccountVersion,
  bankAccountAt,
  currentBankAccount,
  revealBankAccount,
} from './bank-accounts/bank-accounts.repository';
export { findMerchantForPayment, type MerchantForPayment } from './merchants/merchants.repository';
export { createMerchantSecrets, type MerchantSecrets } from './merchants/merchants.secrets';
export { accountNumberProblem, isValidRoutingNumber, routingNumberProblem } from './validation';
