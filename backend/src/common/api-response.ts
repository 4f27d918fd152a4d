import type { ApiResponse } from '@studio/contracts';

/** Builds the spec's success shape {message: 'success', content}. */
export function ok<T>(content: T): ApiResponse<T> {
  return { message: 'success', content };
}

/** Builds the spec's error shape: the human message travels in content. */
export function failure(content: string): ApiResponse<string> {
  return { message: 'error', content };
}
