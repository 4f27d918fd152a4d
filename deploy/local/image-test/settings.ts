/**
 * What the image test (deploy/local/image-test.sh) runs the images with, and what docker-compose.yml
 * and deploy/k8s must say the same way (deploy/docker/compose.spec.ts and deploy/k8s/k8s.spec.ts
 * check them against these).
 */

/** Where the signing certificate is mounted in the API and worker containers. */
export const CERT_MOUNT_DIR = '/run/secrets/provenance';

/** The provenance settings of the API and the workers: files of the mounted certificate. */
export const PROVENANCE_SETTINGS = {
  PROVENANCE_CERT_CHAIN: `${CERT_MOUNT_DIR}/chain.pem`,
  PROVENANCE_PRIVATE_KEY: `${CERT_MOUNT_DIR}/signer.key`,
} as const;

/** The worker's command (after the image's entrypoint, tini); the API's is the image's CMD. */
export const WORKER_COMMAND = ['node', 'backend/dist/worker/src/main.js'];

/** The settings compose and k8s give every backend process, beside the addresses and secrets. */
export const PRODUCTION_SETTINGS = {
  NODE_ENV: 'production',
  STORAGE_DRIVER: 's3',
  WORKER_INLINE: 'false',
  ...PROVENANCE_SETTINGS,
} as const;
