// The tests' polling loop is shared with the bench: `@pps/shared/testing`.
export { type WaitOptions, waitFor } from '@pps/shared/testing';
