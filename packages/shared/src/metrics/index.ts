export * from './metrics';
export * from './queues';
