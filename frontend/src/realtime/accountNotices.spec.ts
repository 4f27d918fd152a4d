import { LEDGER_KINDS, type LedgerKind } from '@studio/contracts';
import { creditChangeNotice, moderationNotice, takedownNotice } from './accountNotices';

const change = (kind: LedgerKind | undefined, delta: number, reason = 'Sorry about the outage') => ({
  balance: 50,
  delta,
  reason,
  kind,
});

describe('creditChangeNotice', () => {
  it("announces support's reimbursements and grants with the reason, in the right number", () => {
    expect(creditChangeNotice(change('reimbursement', 5))).toEqual({
      type: 'success',
      message: 'Support added 5 credits',
      description: 'Sorry about the outage',
    });
    expect(creditChangeNotice(change('grant', 1, '  Welcome gift '))).toEqual({
      type: 'success',
      message: 'Support added 1 credit',
      description: 'Welcome gift',
    });
    expect(creditChangeNotice(change('grant', 2, ''))).toEqual({
      type: 'success',
      message: 'Support added 2 credits',
      description: undefined,
    });
  });

  it('tells both directions of an adjustment', () => {
    expect(creditChangeNotice(change('adjustment', 4))?.message).toBe('Support added 4 credits');
    expect(creditChangeNotice(change('adjustment', -3, 'Duplicate grant'))).toEqual({
      type: 'info',
      message: 'Support removed 3 credits',
      description: 'Duplicate grant',
    });
  });

  it("stays quiet for the user's own spending, refunds and purchases, and when the kind is unknown", () => {
    const quiet = LEDGER_KINDS.filter(
      (kind) => !['reimbursement', 'grant', 'adjustment', 'allowance'].includes(kind),
    );
    expect(quiet).toEqual(['purchase', 'reservation', 'capture', 'refund']);
    for (const kind of quiet) expect(creditChangeNotice(change(kind, 3))).toBeNull();
    expect(creditChangeNotice(change(undefined, 5))).toBeNull();
    expect(creditChangeNotice(change('grant', 0))).toBeNull();
  });

  it('welcomes the free allowance', () => {
    expect(creditChangeNotice(change('allowance', 25))).toMatchObject({
      type: 'success',
      message: 'Welcome: 25 free coins to try the tools',
    });
  });
});

describe('takedownNotice', () => {
  it('names the item, says whether it was hidden or removed, and gives the reason', () => {
    expect(takedownNotice({ itemId: 'a', title: 'Beach', reason: 'Reported', mode: 'hide' })).toEqual({
      type: 'warning',
      message: '“Beach” was hidden by our team',
      description: 'Reason: Reported',
    });
    expect(takedownNotice({ itemId: 'a', title: '  ', reason: 'Copyright', mode: 'delete' })).toEqual({
      type: 'warning',
      message: 'One of your items was removed by our team',
      description: 'Reason: Copyright',
    });
  });
});

describe('moderationNotice', () => {
  const outcome = {
    itemId: 'a',
    title: 'Portrait',
    heldFor: 'minor_face' as const,
    note: 'Adult on a second look',
    refunded: 0,
  };
  it('tells the owner a released output is in their folder, with the note', () => {
    expect(moderationNotice({ ...outcome, decision: 'released' })).toEqual({
      type: 'success',
      message: '“Portrait” was reviewed and released',
      description: 'It is in your folder now. Note from the moderator: Adult on a second look',
    });
  });
  it('tells the owner a removed output is gone, why, and what came back', () => {
    expect(
      moderationNotice({
        ...outcome,
        title: undefined,
        decision: 'removed',
        note: 'Looks under 18.',
        refunded: 2,
      }),
    ).toEqual({
      type: 'warning',
      message: 'Your held result was removed after review',
      description: 'Reason: Looks under 18. 2 credits refunded.',
    });
    expect(moderationNotice({ ...outcome, decision: 'removed', note: 'Looks under 18' }).description).toBe(
      'Reason: Looks under 18.',
    );
  });
});
