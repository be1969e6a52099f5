export * from './cluster';
export * from './metrics';
export * from './queues';
export * from './serve';
