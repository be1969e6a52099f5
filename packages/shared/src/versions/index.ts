export * from './changes';
export * from './render';
export * from './versions';
