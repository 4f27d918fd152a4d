// Its own module: remote-images and remote-http name it, and a1111-client is built on remote-http.

/**
 * Why a call to the remote server failed when the request itself was fine: the job pipeline
 * retries these (anything but EngineInputError / CapabilityUnavailableError is retried).
 * - timeout: no complete answer within the timeout
 * - network: connection refused or reset, DNS failure
 * - server: HTTP 5xx, or 408/429 (busy)
 * - auth: HTTP 401/403, the credentials in the configuration are wrong or missing
 * - protocol: an answer that is not what the API promises (not JSON, no image, undecodable image)
 */
export type A1111ErrorKind = 'timeout' | 'network' | 'server' | 'auth' | 'protocol';

export class A1111Error extends Error {
  constructor(
    readonly kind: A1111ErrorKind,
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'A1111Error';
  }
}
