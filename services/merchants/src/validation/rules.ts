import { accountNumberProblem, routingNumberProblem } from '@pps/shared/banking';
import type { MerchantFieldRules } from '@pps/shared/contract';
import { birthDateProblem } from './birth-date';
import { emailProblem, ipAddressProblem, phoneProblem, timestampProblem, urlProblem } from './contact';
import { einProblem, ssnProblem } from './tax-ids';
import { countryProblem, stateProblem, zipProblem } from './us-address';

/** The rules the contract applies to merchant fields, so one parse lists every invalid field. */
export const merchantFieldRules: Required<MerchantFieldRules> = {
  socialSecurity: ssnProblem,
  ein: einProblem,
  birthDate: birthDateProblem,
  phone: phoneProblem,
  email: emailProblem,
  url: urlProblem,
  zip: zipProblem,
  state: stateProblem,
  country: countryProblem,
  ipAddress: ipAddressProblem,
  timestamp: timestampProblem,
  routingNumber: routingNumberProblem,
  accountNumber: accountNumberProblem,
};
