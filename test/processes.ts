// Ports and child processes, shared with the bench: `@pps/shared/testing`.
export { freePort, processTracker, stopProcess } from '@pps/shared/testing';
