import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(10);

  it('verifies the password it hashed and refuses another', async () => {
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$/);
    await expect(hasher.verify('correct horse', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horsE', stored)).resolves.toBe(false);
  });

  it('salts each hash', async () => {
    expect(await hasher.hash('same')).not.toEqual(await hasher.hash('same'));
  });

  it('verifies hashes made with another cost', async () => {
    const stored = await new PasswordHasher(11).hash('pw-123456');
    await expect(hasher.verify('pw-123456', stored)).resolves.toBe(true);
  });

  it('rejects malformed stored values', async () => {
    await expect(hasher.verify('x', 'bcrypt$whatever')).resolves.toBe(false);
    await expect(hasher.verify('x', '')).resolves.toBe(false);
  });
});
