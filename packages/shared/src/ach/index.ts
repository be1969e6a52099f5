export * from './nacha';
