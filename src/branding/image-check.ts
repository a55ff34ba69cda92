import { createHash } from 'node:crypto';
import { imageSize } from 'image-size';

export const BRAND_ASSETS = ['logo', 'favicon'] as const;
export type BrandAsset = (typeof BRAND_ASSETS)[number];

/** What each image may be: its types (as image-size names them), its size in bytes and in pixels. */
const RULES: Record<BrandAsset, { types: Record<string, string>; maxBytes: number; maxPixels: number; typeNames: string }> = {
  logo: {
    types: { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' },
    maxBytes: 256 * 1024,
    maxPixels: 2048,
    typeNames: 'a PNG, JPEG, WebP or GIF image',
  },
  favicon: {
    types: { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', ico: 'image/x-icon' },
    maxBytes: 64 * 1024,
    maxPixels: 512,
    typeNames: 'an ICO, PNG, JPEG, WebP or GIF image',
  },
};

/** An image found acceptable: its detected type and size, and the version that names it. */
export interface CheckedImage {
  contentType: string;
  width: number;
  height: number;
  version: string;
}

/** An XML or SVG document's opening (a BOM, blanks, a prolog, comments or a doctype may come first). */
const SVG_START = /^\uFEFF?\s*(<\?xml[^>]*>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>/]/i;
const SVG_NAMED = 'an SVG image (it may carry script)';

/**
 * Checks uploaded bytes for `asset`: the type is read from the bytes themselves (never
 * SVG, which can carry script), then the size in bytes and pixels. The problem, as a
 * sentence for the `data` field, when they do not pass.
 */
export function checkImage(asset: BrandAsset, bytes: Buffer): CheckedImage | string {
  const rule = RULES[asset];
  if (bytes.length === 0) return `must be ${rule.typeNames}; it is empty`;
  if (bytes.length > rule.maxBytes) return `must be at most ${rule.maxBytes / 1024} KiB; it is ${Math.ceil(bytes.length / 1024)} KiB`;
  // An SVG is named as such even when image-size cannot read its dimensions.
  if (SVG_START.test(bytes.subarray(0, 4096).toString('utf8'))) return `must be ${rule.typeNames}; this is ${SVG_NAMED}`;
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    return `must be ${rule.typeNames}; these bytes are not an image of those types`;
  }
  const contentType = size.type ? rule.types[size.type] : undefined;
  if (!contentType) return `must be ${rule.typeNames}; this is ${size.type === 'svg' ? SVG_NAMED : `a ${String(size.type).toUpperCase()} image`}`;
  const { width, height } = size;
  if (!width || !height) return `must be ${rule.typeNames} with a width and a height`;
  if (width > rule.maxPixels || height > rule.maxPixels) return `must be at most ${rule.maxPixels}×${rule.maxPixels} pixels; it is ${width}×${height}`;
  return { contentType, width, height, version: createHash('sha256').update(bytes).digest('base64url').slice(0, 16) };
}
