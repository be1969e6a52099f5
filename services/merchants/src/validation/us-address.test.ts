import { describe, expect, it } from 'vitest';
import { countryProblem, stateProblem, US_STATE_CODES, zipProblem } from './us-address';

describe('US addresses', () => {
  it('knows the 50 states, DC and the territories', () => {
    for (const code of ['CA', 'NY', 'TX', 'DC', 'PR', 'GU', 'VI', 'AS', 'MP', 'ca'])
      expect(stateProblem(code)).toBeUndefined();
    expect(US_STATE_CODES.size).toBeGreaterThanOrEqual(56);
    for (const code of ['XX', 'California', 'C', '', 'ZZ']) expect(stateProblem(code)).toBeDefined();
  });

  it('takes a 5-digit ZIP or ZIP+4', () => {
    for (const zip of ['94105', '94105-1234', '941051234']) expect(zipProblem(zip)).toBeUndefined();
    for (const zip of ['9410', '941055', '94105-123', '94105 1234', 'ABCDE', '']) expect(zipProblem(zip)).toBeDefined();
  });

  it('takes US or USA as the country', () => {
    for (const country of ['US', 'USA', 'usa']) expect(countryProblem(country)).toBeUndefined();
    for (const country of ['CA', 'GBR', 'United States', '']) expect(countryProblem(country)).toBeDefined();
  });
});
