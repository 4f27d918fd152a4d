import { clampPacks } from '@studio/contracts';
import { StorageKeys } from './storage';

/** The pack count of the purchase in progress (spec storage key `cart`). */
export function readCart(): number {
  return clampPacks(Number(localStorage.getItem(StorageKeys.cart) ?? 1));
}

export function writeCart(packs: number): void {
  localStorage.setItem(StorageKeys.cart, String(clampPacks(packs)));
}
