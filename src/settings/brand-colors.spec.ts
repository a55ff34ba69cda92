import { contrast, contrastFailure, labelColorOn } from './brand-colors';

describe('brand colours', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    // Known pairs: #767676 on white is the lightest grey that passes 4.5:1.
    expect(contrast('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrast('#777777', '#ffffff')).toBeLessThan(4.5);
  });

  it('puts a white label on dark primaries and a dark one on light primaries', () => {
    expect([labelColorOn('#1f5fbf'), labelColorOn('#ffd60a')]).toEqual(['#ffffff', '#111111']);
  });

  it('accepts the theme itself and a dark custom palette', () => {
    expect(contrastFailure('light', { primary: '', background: '' })).toBeUndefined();
    expect(contrastFailure('dark', { primary: '', background: '' })).toBeUndefined();
    expect(contrastFailure('light', { primary: '#0b6e4f', background: '#ffffff' })).toBeUndefined();
  });

  it('names the colour and the ratio of the first rule broken', () => {
    expect(contrastFailure('light', { primary: '#ffd60a', background: '' })).toEqual({
      color: 'primary',
      message: 'contrast with the background is 1.3:1; at least 4.5:1 is needed (WCAG AA)',
    });
    expect(contrastFailure('light', { primary: '', background: '#333333' })).toEqual({
      color: 'background',
      message: 'contrast with the text colour #1b1f24 is 1.3:1; at least 4.5:1 is needed (WCAG AA)',
    });
    expect(contrastFailure('dark', { primary: '#1f5fbf', background: '' })?.color).toBe('primary');
  });
});
