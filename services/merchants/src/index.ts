// What other services and the tools use of the merchants service (import from `@pps/merchants`); the HTTP app is
// `@pps/merchants/app`.

export { changeMerchantStatus, updateMerchantFeatures } from './admin/admin.usecases';
export {
  type BankAccountVersion,
  bankAccountAt,
  currentBankAccount,
  revealBankAccount,
} from './merchants/model/bank-accounts.repository';
export { createMerchantSecrets, type MerchantSecrets } from './merchants/model/merchants.secrets';
export { accountNumberProblem, isValidRoutingNumber, routingNumberProblem } from './validation';
