/** The .env values docker-compose requires, for the tests that read the compose files' config. */
export const COMPOSE_TEST_SECRETS = {
  SESSION_SECRET: 's'.repeat(40),
  ADMIN_PASSWORD: 'admin-password',
  MINIO_ROOT_PASSWORD: 'minio-password',
  PROVENANCE_CERT_DIR: '/srv/studio/provenance',
  SMTP_URL: 'smtp://mail.example.com:587',
};
