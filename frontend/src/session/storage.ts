/**
 * The browser storage keys the spec names (section 3). The server's session cookie is what
 * proves who someone is; these only remember what to show before the server answers.
 */
export const StorageKeys = {
  account: 'account',
  verified: 'verified',
  registered: 'registered',
  cart: 'cart',
} as const;

export function readAccount(): string | null {
  return localStorage.getItem(StorageKeys.account) || null;
}

export function readVerified(): boolean {
  return localStorage.getItem(StorageKeys.verified) === 'true';
}

export function rememberLogin(username: string, verified: boolean): void {
  localStorage.setItem(StorageKeys.account, username);
  localStorage.setItem(StorageKeys.verified, String(verified));
}

export function forgetLogin(): void {
  localStorage.removeItem(StorageKeys.account);
  localStorage.removeItem(StorageKeys.verified);
}

/** One registration per browser (spec section 5). */
export function hasRegistered(): boolean {
  return localStorage.getItem(StorageKeys.registered) === 'true';
}

export function markRegistered(): void {
  localStorage.setItem(StorageKeys.registered, 'true');
}
