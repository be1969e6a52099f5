export * from './context';
export * from './envelope';
export * from './errors';
export * from './internal-auth';
export * from './middleware';
export * from './on-error';
export * from './pagination';
export * from './service-app';
