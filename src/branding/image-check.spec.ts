import { checkImage } from './image-check';

/** The first bytes of a PNG of `width`×`height` (signature and IHDR: what a reader of its size looks at). */
function pngHeader(width: number, height: number, padTo = 64): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'ascii');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  const head = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
  return Buffer.concat([head, Buffer.alloc(Math.max(0, padTo - head.length))]);
}

describe('checkImage', () => {
  it('accepts a PNG logo, reading its type and size from the bytes, and names it by a digest', () => {
    const checked = checkImage('logo', pngHeader(320, 80));
    expect(checked).toEqual({ contentType: 'image/png', width: 320, height: 80, version: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    expect(checkImage('logo', pngHeader(320, 80))).toEqual(checked);
    expect((checkImage('logo', pngHeader(321, 80)) as { version: string }).version).not.toBe((checked as { version: string }).version);
  });

  it('accepts a GIF favicon', () => {
    const gif = Buffer.concat([Buffer.from('GIF89a', 'ascii'), Buffer.from([32, 0, 32, 0]), Buffer.alloc(30)]);
    expect(checkImage('favicon', gif)).toMatchObject({ contentType: 'image/gif', width: 32, height: 32 });
  });

  it('refuses SVG, text, empty, too large and too many pixels, saying why', () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    expect(checkImage('logo', svg)).toBe('must be a PNG, JPEG, WebP or GIF image; this is an SVG image (it may carry script)');
    for (const bare of ['<svg xmlns="http://www.w3.org/2000/svg"/>', '<?xml version="1.0"?>\n<!-- drawn -->\n<svg viewBox="0 0 1 1"></svg>']) {
      expect(checkImage('favicon', Buffer.from(bare))).toBe('must be an ICO, PNG, JPEG, WebP or GIF image; this is an SVG image (it may carry script)');
    }
    expect(checkImage('logo', Buffer.from('just some text, renamed logo.png'))).toBe('must be a PNG, JPEG, WebP or GIF image; these bytes are not an image of those types');
    expect(checkImage('favicon', Buffer.alloc(0))).toBe('must be an ICO, PNG, JPEG, WebP or GIF image; it is empty');
    expect(checkImage('favicon', pngHeader(16, 16, 70 * 1024))).toBe('must be at most 64 KiB; it is 70 KiB');
    expect(checkImage('logo', pngHeader(4096, 100))).toBe('must be at most 2048×2048 pixels; it is 4096×100');
    expect(checkImage('favicon', pngHeader(1024, 1024))).toBe('must be at most 512×512 pixels; it is 1024×1024');
  });
});
