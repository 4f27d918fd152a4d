export * from './api';
export * from './audit';
export * from './events';
export * from './limits';
export * from './messages';
export * from './pricing';
export * from './roles';
export * from './billing';
