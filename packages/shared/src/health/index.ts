/**
 * `GET /readyz` of every process role: which checks it runs, which it needs (docs/decisions.md, Operators), each
 * bounded so the answer comes within a second.
 */
export * from './readiness';
