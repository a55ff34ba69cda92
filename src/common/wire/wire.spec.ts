import { pageInfo, paging } from './paging';
import { fromBase64, int64, isUuid, unixSeconds } from './wire';

describe('wire helpers', () => {
  it('emits int64 as strings and timestamps as Unix seconds, "0" for never', () => {
    expect(int64(168)).toBe('168');
    expect(int64(undefined)).toBe('0');
    expect(unixSeconds(new Date(1_700_000_000_999))).toBe('1700000000');
    expect(unixSeconds(null)).toBe('0');
  });

  it('accepts standard and URL-safe base64, padded or not', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0x01]);
    for (const text of ['+/8B', '-_8B', '+/8B==', '-_8B']) expect(fromBase64(text)).toEqual(bytes);
    expect(fromBase64('not base64!')).toBeUndefined();
  });

  it('recognises UUIDs', () => {
    expect(isUuid('5b0e3f0a-1c2d-4e5f-8a9b-0c1d2e3f4a5b')).toBe(true);
    expect(isUuid('nope')).toBe(false);
  });
});

describe('paging (docs/api.md, Limits and defaults)', () => {
  it('defaults and clamps', () => {
    expect(paging()).toEqual({ pageSize: 20, page: 1, offset: 0 });
    expect(paging(0, 0)).toEqual({ pageSize: 20, page: 1, offset: 0 });
    expect(paging(1000, 3)).toEqual({ pageSize: 100, page: 3, offset: 200 });
  });

  it('reports totals, also past the end', () => {
    expect(pageInfo(41, paging(20, 9))).toEqual({ totalCount: 41, totalPages: 3, currentPage: 9 });
    expect(pageInfo(0, paging())).toEqual({ totalCount: 0, totalPages: 0, currentPage: 1 });
  });
});
