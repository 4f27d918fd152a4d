/**
 * The api-keys module's face: personal API keys (made, listed, revoked by their owner; found by
 * auth's session guard through its API_KEY_DIRECTORY port) and each key's monthly spending cap.
 *
 * Above auth (whose port it provides); below generation, which counts a job's coins against the
 * key that asked for it, and account-data, which forgets an account's keys with it.
 */
export type { KeyCharge } from './api-key-spending';
export { ApiKeySpending } from './api-key-spending';
export { ApiKeysModule } from './api-keys.module';
export { ApiKeysService } from './api-keys.service';
