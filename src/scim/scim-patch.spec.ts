import { ScimError } from './scim-error';
import { applyPatch } from './scim-patch';

/** SCIM PATCH (RFC 7644 §3.5.2) on a resource's JSON, in the forms directories send (Entra ID, Okta). */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

type Json = Record<string, unknown>;

const ops = (...operations: Json[]) => ({ schemas: [PATCH_OP], Operations: operations });
const patchUser = (resource: Json, ...operations: Json[]) => applyPatch(resource, ops(...operations), USER, [ENTERPRISE]);

/** The ScimError `fn` throws, as status and scimType. */
function refusal(fn: () => unknown): { status: number; scimType?: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return { status: err.status, scimType: err.scimType };
    throw err;
  }
  throw new Error('expected a ScimError, nothing was thrown');
}

function user(extra: Json = {}): Json {
  return {
    schemas: [USER],
    id: '2819c223-7f76-453a-919d-413861904646',
    userName: 'bjensen@example.com',
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    displayName: 'Babs Jensen',
    active: true,
    emails: [
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'babs@jensen.org', type: 'home' },
    ],
    ...extra,
  };
}

describe('applyPatch (SCIM PATCH)', () => {
  it('replaces with a capitalised op name, on a path in any case, leaving the input untouched', () => {
    const before = user();
    const frozen = structuredClone(before);
    const after = patchUser(
      before,
      { op: 'Replace', path: 'DisplayName', value: 'Barbara J.' },
      { op: 'REPLACE', path: 'active', value: 'False' },
      { op: 'Replace', path: 'name.GivenName', value: 'Babs' },
    );
    expect(after).toEqual({ ...frozen, displayName: 'Barbara J.', active: 'False', name: { givenName: 'Babs', familyName: 'Jensen' } });
    expect(before).toEqual(frozen);
  });

  it('replaces path-less: the value object’s attributes, the others kept (Okta’s deactivation)', () => {
    expect(patchUser(user(), { op: 'replace', value: { active: false } })).toEqual(user({ active: false }));
  });

  it('adds to a multi-valued attribute: appends what is new, never a duplicate (same element or same value)', () => {
    const after = patchUser(user(), {
      op: 'add',
      path: 'emails',
      value: [
        { value: 'bjensen@example.com', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'other' },
        { value: 'b@elsewhere.example', type: 'other' },
      ],
    });
    expect(after.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'babs@jensen.org', type: 'home' },
      { value: 'b@elsewhere.example', type: 'other' },
    ]);
    // Onto an attribute the resource does not have yet: it is set.
    expect(patchUser(user({ phoneNumbers: undefined }), { op: 'add', path: 'phoneNumbers', value: [{ value: '+14155550100', type: 'work' }] }).phoneNumbers).toEqual([
      { value: '+14155550100', type: 'work' },
    ]);
  });

  it('replaces through a filtered path: the matching element only', () => {
    const after = patchUser(user(), { op: 'replace', path: 'emails[type eq "work"].value', value: 'barbara@example.com' });
    expect(after.emails).toEqual([
      { value: 'barbara@example.com', type: 'work', primary: true },
      { value: 'babs@jensen.org', type: 'home' },
    ]);
    // The filter's comparison is case-insensitive for strings, as for the attribute.
    const upper = patchUser(user(), { op: 'Replace', path: 'emails[type eq "HOME"].value', value: 'b@home.example' });
    expect(upper.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'b@home.example', type: 'home' },
    ]);
    // Without a sub-attribute, an object value merges into the element.
    const merged = patchUser(user(), { op: 'replace', path: 'emails[type eq "home"]', value: { value: 'b@home.example', display: 'Home' } });
    expect(merged.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'b@home.example', type: 'home', display: 'Home' },
    ]);
  });

  it('creates the element a filtered path describes when none matches (type eq "work")', () => {
    const homeOnly = user({ emails: [{ value: 'babs@jensen.org', type: 'home' }] });
    expect(patchUser(homeOnly, { op: 'Replace', path: 'emails[type eq "work"].value', value: 'bjensen@example.com' }).emails).toEqual([
      { value: 'babs@jensen.org', type: 'home' },
      { type: 'work', value: 'bjensen@example.com' },
    ]);
    const none = user({ emails: undefined });
    delete none.emails;
    expect(patchUser(none, { op: 'Add', path: 'emails[type eq "work"].value', value: 'bjensen@example.com' }).emails).toEqual([{ type: 'work', value: 'bjensen@example.com' }]);
    // A filter that does not say what the element is cannot make one: noTarget.
    expect(refusal(() => patchUser(user(), { op: 'replace', path: 'emails[value co "nowhere"].type', value: 'other' }))).toEqual({ status: 400, scimType: 'noTarget' });
  });

  it('removes through a filtered path: the matching elements, or only their sub-attribute', () => {
    expect(patchUser(user(), { op: 'remove', path: 'emails[type eq "home"]' }).emails).toEqual([{ value: 'bjensen@example.com', type: 'work', primary: true }]);
    expect(patchUser(user(), { op: 'Remove', path: 'emails[type eq "work" and primary eq true].primary' }).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work' },
      { value: 'babs@jensen.org', type: 'home' },
    ]);
    // Nothing matching: nothing removed.
    expect(patchUser(user(), { op: 'remove', path: 'emails[type eq "other"]' })).toEqual(user());
    // A whole attribute, and a sub-attribute.
    const { displayName: _gone, ...rest } = user();
    expect(patchUser(user(), { op: 'remove', path: 'displayName' })).toEqual(rest);
    expect(patchUser(user(), { op: 'remove', path: 'name.familyName' }).name).toEqual({ givenName: 'Barbara' });
  });

  it('removes the members a value lists, only those (a Group)', () => {
    const group = { schemas: [GROUP], displayName: 'Sales', members: [{ value: 'a' }, { value: 'b', display: 'Bea' }, { value: 'c' }] };
    expect(applyPatch(group, ops({ op: 'Remove', path: 'members', value: [{ value: 'b' }, { value: 'zz' }] }), GROUP)).toEqual({ ...group, members: [{ value: 'a' }, { value: 'c' }] });
    expect(applyPatch(group, ops({ op: 'remove', path: 'members[value eq "c"]' }), GROUP)).toEqual({ ...group, members: [{ value: 'a' }, { value: 'b', display: 'Bea' }] });
    const { members: _all, ...withoutMembers } = group;
    expect(applyPatch(group, ops({ op: 'remove', path: 'members' }), GROUP)).toEqual(withoutMembers);
  });

  it('adds path-less values whose keys are dotted or schema-qualified paths (Entra ID)', () => {
    const after = patchUser(user(), {
      op: 'Add',
      value: {
        'name.givenName': 'Babs',
        [`${USER}:nickName`]: 'BJ',
        [`${ENTERPRISE}:department`]: 'Marketing',
        [`${ENTERPRISE}:manager`]: { value: 'boss' },
        title: 'Tour Guide',
      },
    });
    expect(after).toEqual({
      ...user(),
      schemas: [USER, ENTERPRISE],
      name: { givenName: 'Babs', familyName: 'Jensen' },
      nickName: 'BJ',
      title: 'Tour Guide',
      [ENTERPRISE]: { department: 'Marketing', manager: { value: 'boss' } },
    });
  });

  it('merges an enterprise extension object given as a path-less value into the extension', () => {
    const before = user({ schemas: [USER, ENTERPRISE], [ENTERPRISE]: { employeeNumber: '701984', department: 'Sales' } });
    const after = patchUser(before, { op: 'replace', value: { schemas: ['ignored'], [ENTERPRISE]: { department: 'Marketing', manager: { value: 'boss' } }, displayName: 'B' } });
    expect(after).toEqual({ ...before, displayName: 'B', [ENTERPRISE]: { employeeNumber: '701984', department: 'Marketing', manager: { value: 'boss' } } });
    // On a user without the extension yet: it is made, and its schema listed.
    expect(patchUser(user(), { op: 'add', value: { [ENTERPRISE]: { employeeNumber: '42' } } })).toEqual({ ...user(), schemas: [USER, ENTERPRISE], [ENTERPRISE]: { employeeNumber: '42' } });
    // A schema-qualified path into it, and its removal.
    expect(patchUser(before, { op: 'replace', path: `${ENTERPRISE}:department`, value: 'Legal' })[ENTERPRISE]).toEqual({ employeeNumber: '701984', department: 'Legal' });
    expect(patchUser(before, { op: 'remove', path: `${ENTERPRISE}:department` })[ENTERPRISE]).toEqual({ employeeNumber: '701984' });
  });

  it.each<[string, string, unknown]>([
    ['a body that is not an object', 'invalidSyntax', [{ op: 'add' }]],
    ['a body without schemas', 'invalidSyntax', { Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }],
    ['a body with another schema', 'invalidSyntax', { schemas: [USER], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }],
    ['a body without Operations', 'invalidSyntax', { schemas: [PATCH_OP] }],
    ['empty Operations', 'invalidSyntax', { schemas: [PATCH_OP], Operations: [] }],
    ['an operation that is not an object', 'invalidSyntax', { schemas: [PATCH_OP], Operations: ['replace'] }],
    ['an unknown op', 'invalidSyntax', ops({ op: 'move', path: 'displayName', value: 'x' })],
    ['an operation without op', 'invalidSyntax', ops({ path: 'displayName', value: 'x' })],
    ['remove without a path', 'noTarget', ops({ op: 'remove' })],
    ['remove with an empty path', 'noTarget', ops({ op: 'Remove', path: '' })],
    ['a path that is not a string', 'invalidPath', ops({ op: 'replace', path: 42, value: 'x' })],
    ['a path with a malformed filter', 'invalidPath', ops({ op: 'replace', path: 'emails[type eq].value', value: 'x' })],
    ['a path that is not one', 'invalidPath', ops({ op: 'replace', path: 'name.givenName.first', value: 'x' })],
    ['a path-less value that is not an object', 'invalidValue', ops({ op: 'replace', value: 'x' })],
  ])('refuses %s: 400 with scimType %s', (_what, scimType, body) => {
    expect(refusal(() => applyPatch(user(), body, USER, [ENTERPRISE]))).toEqual({ status: 400, scimType });
  });
});
