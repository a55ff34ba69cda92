import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleFiles } from './console-files';

describe('ConsoleFiles', () => {
  let root: string;
  let files: ConsoleFiles;

  beforeAll(() => {
    const base = mkdtempSync(join(tmpdir(), 'console-files-'));
    root = join(base, 'console');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'export {};');
    writeFileSync(join(root, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(join(base, 'secret.txt'), 'no');
    files = new ConsoleFiles(root);
  });

  afterAll(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('answers index.html and the files under assets/ with their content types', () => {
    expect(files.indexHtml()?.toString()).toContain('id="root"');
    expect(files.asset('index-abc123.js')).toMatchObject({ type: 'text/javascript; charset=utf-8', size: 10 });
    expect(files.asset('index-abc123.css')?.type).toBe('text/css; charset=utf-8');
  });

  it('answers nothing outside assets/, for directories, missing files or malformed paths', () => {
    for (const path of ['../index.html', '..%2F..%2Fsecret.txt', '../../secret.txt', '', 'missing.js', '%E0%A4%A', 'a%00.js', '/etc/passwd']) {
      expect(files.asset(path)).toBeUndefined();
    }
  });

  it('serves nothing when the app is not built', () => {
    const none = new ConsoleFiles(null);
    expect(none.indexHtml()).toBeUndefined();
    expect(none.asset('index-abc123.js')).toBeUndefined();
  });
});
