/**
 * The boot of the API and worker processes (their main.ts): the configuration, validated, and in
 * production the check that outputs can be marked. Beside config/ rather than in it: it uses the
 * provenance module, which itself reads the configuration.
 */
import { ConfigError, loadConfig, type AppConfig } from './config/app-config';
import { provenanceProblem } from './modules/provenance';

const EX_CONFIG = 78;

/** Validates the environment before Nest starts, so a bad variable stops boot with one clear message. */
export function exitOnConfigError(): AppConfig {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(EX_CONFIG);
    }
    throw err;
  }
}

/**
 * The configuration of the API or worker process: validated, and in production only when outputs
 * can be marked (the provenance tool installed and signing with the configured certificate,
 * docs/provenance.md). Production never warns and carries on: it stops with the reason.
 */
export async function bootConfig(): Promise<AppConfig> {
  const config = exitOnConfigError();
  if (config.NODE_ENV === 'production') {
    const problem = await provenanceProblem(config);
    if (problem) {
      process.stderr.write(`Refusing to start in production: outputs could not be marked: ${problem}\n`);
      process.exit(EX_CONFIG);
    }
  }
  return config;
}
