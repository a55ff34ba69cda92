/**
 * The contrast rules a sector's brand colours must meet (WCAG 2.x AA), on the colours
 * the pages actually draw with: the console's theme (console/src/ui/theme.css) with the
 * sector's primary colour as its accent and its background colour as the page's.
 */

/** The theme's own colours, as console/src/ui/theme.css sets them per mode. */
export const THEME = {
  light: { accent: '#1f5fbf', bg: '#f6f7f9', surface: '#ffffff', text: '#1b1f24', muted: '#545d68' },
  dark: { accent: '#8ab4f8', bg: '#111418', surface: '#1b2027', text: '#e8eaed', muted: '#a9b1bb' },
} as const;

/** AA for text (links are drawn in the primary colour) and for the labels on buttons. */
const MIN_CONTRAST = 4.5;

/** The two label colours a button on the primary colour may get (the console picks the same way). */
const LABELS = ['#ffffff', '#111111'] as const;

/** WCAG 2.x relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The label colour that contrasts most with `primary`. */
export function labelColorOn(primary: string): string {
  return contrast(LABELS[0], primary) >= contrast(LABELS[1], primary) ? LABELS[0] : LABELS[1];
}

/** One mode's colours as a sector sets them ('' = the theme's own). */
export interface BrandPair {
  primary: string;
  background: string;
}

/** A failed rule: which of the pair it concerns and why. */
export interface ContrastFailure {
  color: keyof BrandPair;
  message: string;
}

function ratio(value: number): string {
  return `${(Math.floor(value * 10) / 10).toFixed(1)}:1`;
}

/**
 * The first rule the effective colours of one mode break, if any: the primary against the
 * background and the cards, the theme's text against the background, a button's label
 * against the primary.
 */
export function contrastFailure(mode: keyof typeof THEME, pair: BrandPair): ContrastFailure | undefined {
  const theme = THEME[mode];
  const primary = pair.primary || theme.accent;
  const background = pair.background || theme.bg;
  const checks: Array<[keyof BrandPair, number, string]> = [
    ['background', contrast(theme.text, background), `the text colour ${theme.text}`],
    ['background', contrast(theme.muted, background), `the secondary text colour ${theme.muted}`],
    ['primary', contrast(primary, background), 'the background'],
    ['primary', contrast(primary, theme.surface), `the cards' colour ${theme.surface}`],
    ['primary', contrast(labelColorOn(primary), primary), `a button's label (${labelColorOn(primary)})`],
  ];
  for (const [color, value, against] of checks) {
    if (value < MIN_CONTRAST) return { color, message: `contrast with ${against} is ${ratio(value)}; at least ${MIN_CONTRAST}:1 is needed (WCAG AA)` };
  }
  return undefined;
}
