export {
  abaChecksumValid,
  accountNumberProblem,
  isValidRoutingNumber,
  routingNumberProblem,
} from '@pps/shared/banking';
export * from './birth-date';
export * from './contact';
export * from './problem';
export * from './rules';
export * from './tax-ids';
export * from './us-address';
