import { interactionId, parseInteractionId } from './interaction-id';

describe('OpenID Provider interaction ids', () => {
  const sectorId = '3f2b8c1e-9d4a-4b6f-8e21-0c5d7a9b1f34';

  it('carry the uid and the sector, and parse back', () => {
    const id = interactionId(sectorId, 'V1StGXR8_Z5jdHi6B-myT');
    expect(id).toMatch(/^V1StGXR8_Z5jdHi6B-myT\.[A-Za-z0-9_-]{22}$/);
    expect(parseInteractionId(id)).toEqual({ uid: 'V1StGXR8_Z5jdHi6B-myT', sectorId });
  });

  it('refuse anything else', () => {
    for (const bad of ['', 'abc', 'a.b', 'a.b.c', `x y.${'A'.repeat(22)}`, `.${'A'.repeat(22)}`, `${'u'.repeat(65)}.${'A'.repeat(22)}`]) {
      expect(parseInteractionId(bad)).toBeUndefined();
    }
  });
});
