/**
 * The account-data module's face: the profile, export and deletion of an account across modules.
 * Why a module above accounts, billing, folders and generation (and not an event): see
 * account-data.module.ts. Only the API app imports it.
 */
export { AccountDataModule } from './account-data.module';
