/** What the engine logs through; NestJS's Logger fits. */
export interface EngineLogger {
  log(message: string): void;
  warn(message: string): void;
}

export const silentLogger: EngineLogger = { log: () => undefined, warn: () => undefined };
