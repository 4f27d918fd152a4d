import {
  buildStats,
  civilDateAt,
  contributionOf,
  startOfDay,
  statsWindow,
  zoneFormatter,
  zoneOffset,
  type EntryFigures,
  type StatsRow,
} from './audit-stats';

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
];

describe('admin statistics: days in a time zone', () => {
  it('knows a zone offset at an instant, summer and winter', () => {
    const berlin = zoneFormatter('Europe/Berlin');
    expect(zoneOffset(berlin, Date.parse('2026-07-01T12:00:00Z'))).toBe(2 * 3600_000);
    expect(zoneOffset(berlin, Date.parse('2026-12-01T12:00:00Z'))).toBe(3600_000);
    expect(zoneOffset(zoneFormatter('Asia/Kolkata'), Date.parse('2026-12-01T12:00:00Z'))).toBe(
      5.5 * 3600_000,
    );
  });

  it('finds the first instant of every day of 2026 in zones with DST, half hours and skipped midnights', () => {
    for (const zone of ZONES) {
      const fmt = zoneFormatter(zone);
      for (let d = 0; d < 366; d += 1) {
        const day = new Date(Date.UTC(2026, 0, 1 + d));
        const date = { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() };
        const start = startOfDay(fmt, date);
        expect([zone, civilDateAt(fmt, start)]).toEqual([zone, date]);
        expect([zone, civilDateAt(fmt, start - 1000)]).not.toEqual([zone, date]);
      }
    }
  });

  it('gives 30 chart days, Monday and the 1st of the month around a DST change', () => {
    const w = statsWindow('Europe/Berlin', new Date('2026-11-01T10:00:00Z'));
    expect(w.dates[w.today]).toBe('2026-11-01');
    expect(w.dates[w.chartFirst]).toBe('2026-10-03');
    expect(w.dates[w.weekFirst]).toBe('2026-10-26');
    expect(w.dates[w.monthFirst]).toBe('2026-11-01');
    expect(new Date(w.starts[w.weekFirst]).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(new Date(w.starts[w.weekFirst - 1]).toISOString()).toBe('2026-10-24T22:00:00.000Z');
    // The 31st: the month starts before the chart's first day.
    const end = statsWindow('UTC', new Date('2026-12-31T10:00:00Z'));
    expect(end.dates[0]).toBe('2026-12-01');
    expect(end.dates[end.chartFirst]).toBe('2026-12-02');
  });

  it('sums the figures the server stored, never a number in the message', () => {
    const w = statsWindow('UTC', new Date('2026-11-04T10:00:00Z'));
    const at = new Date('2026-11-04T01:00:00Z');
    const s = buildStats(w, [
      { createdOn: at, credits: 12 },
      { createdOn: at, swaps: 10 },
      { createdOn: at, credits: 2, swaps: 1 },
      // What a user-named folder or batch once added: text, no figure.
      { createdOn: at, message: 'Created folder 999999 credits..' } as StatsRow,
      { createdOn: at, category: 'FaceSwap', message: 'Downloaded Swapped 9 images.' } as StatsRow,
      // Junk figures count nothing.
      { createdOn: at, credits: -5, swaps: 0 },
      { createdOn: at, credits: 1.5 },
      { createdOn: at, credits: '7' as unknown as number },
      { createdOn: new Date('2026-11-05T00:00:00Z'), credits: 99 },
    ]);
    expect(s.totals.today).toEqual({ credits: 14, dollars: 0.7 });
    expect(s.totals.week).toEqual({ credits: 14, dollars: 0.7 });
    expect(s.faceSwapsPerDay.at(-1)).toEqual({
      day: '04-11',
      date: '2026-11-04',
      faceSwaps: 11,
      dollars: 0.55,
    });
  });

  it('reads only the figure fields of a row', () => {
    expect(contributionOf({ credits: 3, swaps: 2 })).toEqual({ credits: 3, swaps: 2 });
    expect(
      contributionOf({ category: 'FaceSwap', message: 'Spent 5 credits. Swapped 5 images.' } as EntryFigures),
    ).toEqual({ credits: 0, swaps: 0 });
  });
});
