import { describeDevice } from './account-sessions';
import { toCsv } from '../../common/csv';
import { isStrongEnough } from './password-strength';

describe('account helpers', () => {
  it('writes RFC 4180 CSV and defuses spreadsheet formulas in text cells', () => {
    const csv = toCsv(
      ['reason', 'amount'],
      [
        ['=HYPERLINK("http://x")', -5],
        ['a, "quoted"\nline', 3],
        ['@SUM(A1)', undefined],
      ],
    );
    expect(csv).toBe(
      'reason,amount\r\n' +
        `"'=HYPERLINK(""http://x"")",-5\r\n` +
        '"a, ""quoted""\nline",3\r\n' +
        "'@SUM(A1),\r\n",
    );
  });

  it('names the browser and system of a user agent', () => {
    expect(
      describeDevice(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome 120 on Linux');
    expect(describeDevice(undefined)).toBe('Unknown device');
  });

  it('refuses guessable passwords, counting the name and address as known words', async () => {
    expect(await isStrongEnough('password1', [])).toBe(false);
    expect(await isStrongEnough('qwertyuiop', [])).toBe(false);
    expect(await isStrongEnough('quiet-lantern-42', [])).toBe(true);
    expect(await isStrongEnough('kettlewhisper', [])).toBe(true);
    expect(await isStrongEnough('kettlewhisper', ['kettlewhisper@example.com'])).toBe(false);
  });
});
