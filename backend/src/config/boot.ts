import { ConfigError, loadConfig, type AppConfig } from './app-config';

/** Validates the environment before Nest starts, so a bad variable stops boot with one clear message. */
export function exitOnConfigError(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}
