import { usernameProblem } from './limits';

describe('usernameProblem', () => {
  it('accepts ordinary names', () => {
    expect(usernameProblem('alice')).toBeNull();
    expect(usernameProblem('Bob_1.x-y')).toBeNull();
  });
  it('rejects names that are too short or too long', () => {
    expect(usernameProblem('ab')).toBe('length');
    expect(usernameProblem('a'.repeat(33))).toBe('length');
  });
  it('rejects other characters and a leading symbol', () => {
    expect(usernameProblem('al ice')).toBe('characters');
    expect(usernameProblem('_alice')).toBe('characters');
    expect(usernameProblem('al/ice')).toBe('characters');
    expect(usernameProblem('ålice')).toBe('characters');
  });
  it("refuses the deleted accounts' prefix in any letter case, and only as a prefix", () => {
    expect(usernameProblem('deleted-1a2b3c4d5e6f7a8b')).toBe('reserved');
    expect(usernameProblem('Deleted-alice')).toBe('reserved');
    expect(usernameProblem('deleted_alice')).toBeNull();
    expect(usernameProblem('undeleted-alice')).toBeNull();
  });
});
