import { isReservedUsername, usernameSkeleton } from './reserved-names';

describe('reserved user names (staff and brand look-alikes)', () => {
  // [name, why it is refused]
  const refused: [string, string][] = [
    // whole names, as before
    ['admin', 'a reserved name'],
    ['ADMIN', 'case does not count'],
    ['Admin.', 'separators do not count'],
    ['ad_min', 'separators do not count'],
    ['adm1n', '1 reads as i'],
    ['4dmin', '4 reads as a'],
    ['@dmin', '@ reads as a'],
    ['5upport', '5 reads as s'],
    ['$upport', '$ reads as s'],
    ['str1pe', '1 reads as i'],
    ['stud10', '1 and 0 read as i and o'],
    ['5y57em', 'digits read as letters'],
    ['r00t', '0 reads as o'],
    ['adrnin', 'rn reads as m'],
    ['aclmin', 'cl reads as d'],
    ['vvebmaster', 'vv reads as w'],
    ['Studio_', 'a reserved name'],
    ['root', 'a reserved name'],
    ['mod', 'a reserved name'],
    ['help', 'a reserved name'],
    // issue 52: staff-looking names that registered
    ['studio-support', 'two reserved words'],
    ['stripe-billing', 'two reserved words'],
    ['supportteam', 'contains support'],
    ['admin1', 'contains admin'],
    ['admins', 'contains admin'],
    ['the.admin', 'contains admin'],
    ['sysadmin', 'contains admin'],
    ['administrator', 'contains admin'],
    ['alice_admin', 'contains admin'],
    ['badminton-admin', 'contains admin beside the innocent word'],
    ['xXadminXx', 'contains admin'],
    ['officialstudio', 'contains official'],
    ['unofficial', 'contains official'],
    ['stripes', 'contains stripe'],
    ['stripe2', 'contains stripe'],
    ['billing.stripe', 'contains stripe'],
    ['staffmember', 'contains staff'],
    ['moderatorjane', 'contains moderator'],
    ['patreonteam', 'contains patreon'],
    ['supporter', 'contains support'],
    ['studioteam', 'studio and a filler'],
    ['thestudio', 'studio and a filler'],
    ['studio2024', 'studio and trailing digits'],
    ['studios', 'studio and a plural'],
    ['root2', 'root and trailing digits'],
    ['alice.mod', 'mod as a part of its own'],
    ['mod-team', 'mod and a filler'],
    ['modteam', 'mod and a filler'],
    ['helpdesk', 'a reserved name'],
    ['help-desk', 'help and a filler'],
    ['securityteam', 'security and a filler'],
    ['system-ops', 'system and a filler'],
    ['ai-studio', 'studio and a filler'],
    ['anna.studio', 'studio as a part of its own'],
    ['billinghq', 'billing and a filler'],
    ['ownerteam', 'owner and a filler'],
    ['replicate-bot', 'replicate and a filler'],
    ['deleted_alice', 'deleted as a part of its own'],
  ];
  // [name, why it registers]
  const allowed: [string, string][] = [
    ['alice', 'an ordinary name'],
    ['Bob_1.x-y', 'an ordinary name'],
    ['badminton', 'an innocent word containing admin'],
    ['badminton_fan', 'an innocent word containing admin'],
    ['madmind', 'mad mind, not admin'],
    ['headmind', 'head mind, not admin'],
    ['pinstripe', 'an innocent word containing stripe'],
    ['striped.cat', 'an innocent word containing stripe'],
    ['staffan', 'a first name containing staff'],
    ['staffy_lover', 'a dog breed containing staff'],
    ['flagstaff', 'a town containing staff'],
    ['mystudio', 'studio only inside a longer word'],
    ['annastudio', 'studio only inside a longer word'],
    ['studiolo', 'studio only inside a longer word'],
    ['model', 'mod only inside a longer word'],
    ['modern-art', 'mod only inside a longer word'],
    ['beetroot', 'root only inside a longer word'],
    ['roots', 'an innocent word'],
    ['rooted', 'root only inside a longer word'],
    ['ecosystem', 'system only inside a longer word'],
    ['insecurity', 'security only inside a longer word'],
    ['helper', 'help only inside a longer word'],
    ['billings', 'billing only inside a longer word'],
    ['team', 'a filler alone'],
    ['theteam', 'fillers alone'],
    ['dev-ops', 'fillers alone'],
    ['mina', 'no reserved word'],
    ['clara', 'no reserved word'],
    ['wendy', 'no reserved word'],
    ['adam', 'no reserved word'],
    ['dominic', 'no reserved word'],
  ];

  it.each(refused)('refuses %s (%s)', (name) => {
    expect(isReservedUsername(name)).toBe(true);
  });

  it.each(allowed)('lets %s register (%s)', (name) => {
    expect(isReservedUsername(name)).toBe(false);
  });

  it('reads look-alikes as the letters they stand for (TR39 skeleton of the ASCII confusables)', () => {
    expect(usernameSkeleton('aclmin')).toBe(usernameSkeleton('admin'));
    expect(usernameSkeleton('adrnin')).toBe(usernameSkeleton('admin'));
    expect(usernameSkeleton('Ad.M-1_n')).toBe(usernameSkeleton('admin'));
    expect(usernameSkeleton('vv')).toBe(usernameSkeleton('w'));
    expect(usernameSkeleton('S7R1P3')).toBe(usernameSkeleton('stripe'));
    expect(usernameSkeleton('ádmin')).toBe(usernameSkeleton('admin'));
  });
});
