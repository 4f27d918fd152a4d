export * from './engine.port';
