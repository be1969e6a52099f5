export * from './amount';
export * from './fees';
