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

  it('flags hashes made with other parameters for a rehash, and not its own', async () => {
    expect(hasher.needsRehash(await hasher.hash('pw-123456'))).toBe(false);
    expect(hasher.needsRehash(await new PasswordHasher(11).hash('pw-123456'))).toBe(true);
    const salt = 'c2FsdHNhbHRzYWx0c2FsdA==';
    expect(hasher.needsRehash(`scrypt$10$4$1$${salt}$a2V5`)).toBe(true);
    expect(hasher.needsRehash(`scrypt$10$8$2$${salt}$a2V5`)).toBe(true);
    expect(hasher.needsRehash('bcrypt$10$8$1$x$y')).toBe(true);
  });

  it('rejects malformed stored values', async () => {
    await expect(hasher.verify('x', 'bcrypt$whatever')).resolves.toBe(false);
    await expect(hasher.verify('x', '')).resolves.toBe(false);
  });
});
