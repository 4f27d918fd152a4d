import { ForbiddenException } from '@nestjs/common';
import { assertActingAs, type AuthUser } from './auth-user';

const alice: AuthUser = { id: '1', username: 'Alice', role: 'user' };

describe('assertActingAs', () => {
  it('accepts the session user under any letter case, or no claim at all', () => {
    expect(() => assertActingAs(alice, 'alice')).not.toThrow();
    expect(() => assertActingAs(alice, 'Alice')).not.toThrow();
    expect(() => assertActingAs(alice, undefined)).not.toThrow();
  });

  it('refuses another name', () => {
    expect(() => assertActingAs(alice, 'bob')).toThrow(ForbiddenException);
    expect(() => assertActingAs(alice, 'alice2')).toThrow('You can only act as yourself');
  });
});
