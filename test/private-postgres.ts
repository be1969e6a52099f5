// Private PostgreSQL clusters, shared with the bench: `@pps/shared/testing`.
export {
  createPrivatePostgres,
  createReplicatedPostgres,
  type PrivatePostgres,
  type ReplicatedPostgres,
} from '@pps/shared/testing';
