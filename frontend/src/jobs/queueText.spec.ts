import { formatEta, openJobText, ordinal, runningText, waitingText } from './queueText';

describe('queue words', () => {
  it('names places in line as people say them', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
      '111th',
    ]);
    expect(ordinal(1002)).toBe('1,002nd');
  });

  it('rounds estimates to what an estimate can promise', () => {
    expect(formatEta(0)).toBe('any moment now');
    expect(formatEta(7)).toBe('a few seconds');
    expect(formatEta(23)).toBe('about 25 s');
    expect(formatEta(60)).toBe('about 1 min');
    expect(formatEta(150)).toBe('about 3 min');
    expect(formatEta(3600)).toBe('about 1 h');
    expect(formatEta(5400)).toBe('about 1 h 30 min');
  });

  it('says where a waiting job stands and how long a running one has left', () => {
    expect(waitingText(3, 60)).toBe('3rd in line · about 1 min');
    expect(waitingText(1)).toBe('Next in line');
    expect(waitingText(undefined)).toBe('Waiting for a free worker');
    expect(runningText()).toBe('Working on it…');
    expect(runningText(40)).toBe('Working on it · about 40 s left');
    expect(runningText(0)).toBe('Working on it · finishing');
    const now = Date.UTC(2026, 10, 26, 10, 0, 0);
    expect(openJobText({ state: 'queued', position: 2, etaAt: now + 20_000 }, now)).toBe(
      '2nd in line · about 20 s',
    );
    // Past its estimate it never counts below zero.
    expect(openJobText({ state: 'running', etaAt: now - 5_000 }, now)).toBe('Working on it · finishing');
  });
});
