// What the tests and the bench share (databases, queue keys, Redis clusters, private PostgreSQL, processes, polling,
// a valid merchant's attributes). Never imported by production code: `npm run check:imports` refuses it.
export * from './databases';
export * from './merchant-attributes';
export * from './private-postgres';
export * from './processes';
export * from './queue-keys';
export * from './redis-cluster';
export * from './runs';
export * from './wait';
