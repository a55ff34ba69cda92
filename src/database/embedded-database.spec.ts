import { unenterableFolder } from './embedded-database';

describe('unenterableFolder', () => {
  const PG = 104;
  const folders: Record<string, { mode: number; uid: number }> = {
    '/': { mode: 0o40755, uid: 0 },
    '/root': { mode: 0o40700, uid: 0 },
    '/root/iam': { mode: 0o40755, uid: 0 },
    '/tmp': { mode: 0o41777, uid: 0 },
    '/tmp/priv': { mode: 0o40700, uid: 0 },
    '/tmp/pgowned': { mode: 0o40700, uid: PG },
    '/var': { mode: 0o40755, uid: 0 },
    '/var/lib': { mode: 0o40755, uid: 0 },
  };
  const stat = (path: string) => {
    const info = folders[path];
    if (!info) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return info;
  };

  it('names the first folder the postgres user cannot enter', () => {
    expect(unenterableFolder('/root/iam/data/pg', PG, stat)).toBe('/root');
    expect(unenterableFolder('/tmp/priv/data/pg', PG, stat)).toBe('/tmp/priv');
  });

  it('accepts folders others may enter, folders postgres owns, and folders not made yet', () => {
    expect(unenterableFolder('/var/lib/iam/pg', PG, stat)).toBeUndefined();
    expect(unenterableFolder('/tmp/pgowned/pg', PG, stat)).toBeUndefined();
    expect(unenterableFolder('/tmp/new/pg', undefined, stat)).toBeUndefined();
  });
});
