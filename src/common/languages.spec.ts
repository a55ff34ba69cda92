import { isShippedLanguage, matchLanguage, SHIPPED_LANGUAGES } from './languages';

describe('languages', () => {
  it('ships English, German and French', () => {
    expect(SHIPPED_LANGUAGES).toEqual(['en', 'de', 'fr']);
  });

  it.each([
    ['de', 'de'],
    ['de-AT', 'de'],
    ['fr_CA', 'fr'],
    ['EN', 'en'],
    [' en-GB ', 'en'],
    ['ja', undefined],
    ['deu', undefined],
    ['', undefined],
    [null, undefined],
    [undefined, undefined],
  ])('matches %p to %p', (tag, expected) => {
    expect(matchLanguage(tag)).toBe(expected);
  });

  it('knows its own codes only', () => {
    expect([isShippedLanguage('fr'), isShippedLanguage('fr-FR'), isShippedLanguage(1)]).toEqual([true, false, false]);
  });
});
