import { creditEntryText } from './CreditsPage';

describe('creditEntryText', () => {
  it("tells a failed job's refund from a moderator's removal of a result", () => {
    expect(creditEntryText({ kind: 'refund', tool: 'generate' })).toBe('Refund: Generated did not finish');
    expect(creditEntryText({ kind: 'refund', tool: 'generate', by: 'mira' })).toBe(
      'Refund: Generated result removed after review',
    );
    expect(creditEntryText({ kind: 'refund' })).toBe('Refund');
  });
});
