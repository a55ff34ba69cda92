import { createSector, ProvisionedTenant, provisionTenant } from './support/factories';
import { SCIM, SCIM_TIME, SCIM_VERSION } from './support/scim';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

/**
 * SCIM 2.0 provisioning of a sector's users (`/scim/v2/{sectorID}`): the requests a
 * directory sends, with whole-body assertions, and their effect on sign-in and
 * introspection.
 */

const { USER, ENTERPRISE, PATCH_OP, LIST, ERROR } = SCIM;
const ISO = SCIM_TIME;
const VERSION = SCIM_VERSION;

describe('SCIM 2.0 users', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let sector: string;
  let token: string;
  let base: string;
  const scim = () => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' });
  const path = (p: string) => `/scim/v2/${sector}${p}`;

  beforeAll(async () => {
    t = await startTestApp({ env: NO_THROTTLE });
    a = await provisionTenant(t);
    sector = await createSector(t, a.adminToken);
    token = (await t.http().post(`/api/v1/sectors/${sector}/tokens`).set('Authorization', `Bearer ${a.adminToken}`).send({ name: 'entra' })).body.token;
    base = `${t.config.publicUrl}/scim/v2/${sector}`;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('provisions a user as Entra ID does: look up by userName, create, update, deactivate, reactivate, delete', async () => {
    // 1. Entra ID first asks whether the user exists.
    const lookup = await t.http().get(path('/Users')).query({ filter: 'userName eq "Test_User_ab6490ee@contoso.com"' }).set(scim());
    expect(lookup.status).toBe(200);
    expect(lookup.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(lookup.body).toEqual({ schemas: [LIST], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });

    // 2. It creates it.
    const created = await t
      .http()
      .post(path('/Users'))
      .set(scim())
      .send({
        schemas: [USER, ENTERPRISE],
        externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
        userName: 'Test_User_ab6490ee@contoso.com',
        active: true,
        emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b@contoso.com' }],
        meta: { resourceType: 'User' },
        name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
        roles: [],
        [ENTERPRISE]: { department: 'Sales', employeeNumber: '701984', manager: { value: 'boss-id' } },
      });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.location).toBe(`${base}/Users/${id}`);
    expect(created.headers.etag).toEqual(VERSION);
    expect(created.body).toEqual({
      schemas: [USER, ENTERPRISE],
      id,
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee@contoso.com',
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      active: true,
      emails: [{ value: 'Test_User_fd0ea19b@contoso.com', type: 'work', primary: true }],
      [ENTERPRISE]: { department: 'Sales', employeeNumber: '701984', manager: { value: 'boss-id' } },
      meta: { resourceType: 'User', created: ISO, lastModified: ISO, location: `${base}/Users/${id}`, version: VERSION },
    });
    // The service's own API sees the same user, with no password and nothing mailed.
    const profile = await t.http().get(`/api/v1/users/${id}`).set('Authorization', `Bearer ${a.adminToken}`);
    expect(profile.body).toMatchObject({ sub: id, disabled: false, email: 'Test_User_fd0ea19b@contoso.com', givenName: 'givenName', familyName: 'familyName', emailVerified: false });

    // 3. Found by userName (case-insensitively) and by externalId.
    const found = await t.http().get(path('/Users')).query({ filter: 'userName eq "test_user_AB6490EE@contoso.com"' }).set(scim());
    expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id }] });
    expect((await t.http().get(path('/Users')).query({ filter: 'externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"' }).set(scim())).body.totalResults).toBe(1);

    // 4. Entra ID's PATCH forms: capitalised op, path-less values with dotted keys, a filtered path.
    const patched = await t
      .http()
      .patch(path(`/Users/${id}`))
      .set(scim())
      .send({
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: 'displayName', value: 'Test User' },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@contoso.com' },
          { op: 'Add', value: { 'name.givenName': 'Barbara', [`${ENTERPRISE}:department`]: 'Marketing' } },
        ],
      });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      displayName: 'Test User',
      name: { givenName: 'Barbara', familyName: 'familyName' },
      emails: [{ value: 'updatedEmail@contoso.com', type: 'work', primary: true }],
      [ENTERPRISE]: { department: 'Marketing', employeeNumber: '701984' },
    });

    // 5. Deactivate ("False" as a string, as Entra ID sends it): the user is disabled.
    const deactivated = await t
      .http()
      .patch(path(`/Users/${id}`))
      .set(scim())
      .send({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(deactivated.body.active).toBe(false);
    expect((await t.http().get(`/api/v1/users/${id}`).set('Authorization', `Bearer ${a.adminToken}`)).body.disabled).toBe(true);
    expect((await t.http().get(path('/Users')).query({ filter: 'active eq false' }).set(scim())).body.Resources.map((u: { id: string }) => u.id)).toEqual([id]);

    // 6. Reactivate.
    const reactivated = await t.http().patch(path(`/Users/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
    expect(reactivated.body.active).toBe(true);

    // Every change is in the audit trail with the API token as the actor.
    const trail = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ target: id }).set('Authorization', `Bearer ${a.adminToken}`);
    const events = trail.body.events as Array<{ type: string; actor: { kind: string } }>;
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['user.created', 'user.updated', 'user.disabled', 'user.enabled']));
    expect(new Set(events.map((e) => e.actor.kind))).toEqual(new Set(['apiToken']));

    // 7. Delete: 204, then 404 in SCIM's error body.
    const deleted = await t.http().delete(path(`/Users/${id}`)).set(scim());
    expect(deleted.status).toBe(204);
    const gone = await t.http().get(path(`/Users/${id}`)).set(scim());
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ schemas: [ERROR], status: '404', detail: expect.any(String) });
  });

  it('answers 409 uniqueness for a taken userName, 400 invalidFilter for a malformed filter, 401 for anything but the sector’s token', async () => {
    const body = { schemas: [USER], userName: 'dup@example.com', emails: [{ value: 'dup@example.com', primary: true }] };
    expect((await t.http().post(path('/Users')).set(scim()).send(body)).status).toBe(201);
    const dup = await t.http().post(path('/Users')).set(scim()).send({ ...body, userName: 'DUP@example.com', emails: [] });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ schemas: [ERROR], status: '409', scimType: 'uniqueness', detail: expect.any(String) });

    // A body that is not JSON is refused before the route, in SCIM's body too.
    const malformed = await t.http().post(path('/Users')).set(scim()).send('{"schemas": [');
    expect({ status: malformed.status, body: malformed.body }).toEqual({ status: 400, body: { schemas: [ERROR], status: '400', scimType: 'invalidSyntax', detail: expect.any(String) } });

    const bad = await t.http().get(path('/Users')).query({ filter: 'userName eq' }).set(scim());
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidFilter', detail: expect.any(String) });

    for (const auth of [undefined, `Bearer ${a.adminToken}`, 'Bearer iam_nonsense']) {
      const req = t.http().get(path('/Users'));
      const res = await (auth ? req.set('Authorization', auth) : req);
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { schemas: [ERROR], status: '401', detail: expect.any(String) } });
    }
  });

  it('keeps groups as Entra ID does: create, find by displayName, add and remove members, rename, delete — each seen in introspection', async () => {
    const { GROUP } = SCIM;
    const member = await t.http().post(path('/Users')).set(scim()).send({ schemas: [USER], userName: 'member@contoso.com', emails: [{ value: 'member@contoso.com', primary: true }] });
    const memberID = member.body.id as string;
    await t.http().post(`/api/v1/users/${memberID}/password`).set('Authorization', `Bearer ${a.adminToken}`).send({ newPassword: 'member-password-1' });
    const login = await t.http().post('/api/v1/login/password').send({ username: 'member@contoso.com', password: 'member-password-1', sectorID: sector });
    expect(login.body.status).toBe('SUCCESS');
    const roles = async () => (await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${a.adminToken}`).send({ token: login.body.token })).body.roles;
    expect(await roles()).toEqual([]);

    const created = await t.http().post(path('/Groups')).set(scim()).send({ schemas: [GROUP], displayName: 'Sales Team', externalId: 'grp-1', members: [] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.location).toBe(`${base}/Groups/${id}`);
    expect(created.body).toEqual({
      schemas: [GROUP],
      id,
      externalId: 'grp-1',
      displayName: 'Sales Team',
      members: [],
      meta: { resourceType: 'Group', created: ISO, lastModified: ISO, location: `${base}/Groups/${id}`, version: VERSION },
    });
    // The group is the sector's role `sales-team`, with no permissions yet.
    const sectorRoles = await t.http().get(`/api/v1/sectors/${sector}/roles`).set('Authorization', `Bearer ${a.adminToken}`);
    expect(sectorRoles.body.roles).toEqual([expect.objectContaining({ name: 'sales-team', permissions: [] })]);

    const found = await t.http().get(path('/Groups')).query({ filter: 'displayName eq "sales team"', excludedAttributes: 'members' }).set(scim());
    expect(found.body).toEqual({ schemas: [LIST], totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [{ schemas: [GROUP], id, externalId: 'grp-1', displayName: 'Sales Team', meta: expect.any(Object) }] });

    const add = await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ value: memberID }] }] });
    expect(add.status).toBe(200);
    expect(add.body.members).toEqual([{ value: memberID, display: 'member@contoso.com', type: 'User', $ref: `${base}/Users/${memberID}` }]);
    expect(await roles()).toEqual(['sales-team']);
    expect((await t.http().get(path(`/Users/${memberID}`)).set(scim())).body.groups).toEqual([{ value: id, display: 'sales-team', $ref: `${base}/Groups/${id}` }]);

    const rename = await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', value: { displayName: 'Sales EMEA' } }] });
    expect(rename.body.displayName).toBe('Sales EMEA');
    expect(await roles()).toEqual(['sales-emea']);

    // Entra ID removes a member by value; Okta and others by a filtered path.
    const removed = await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ value: memberID }] }] });
    expect(removed.body.members).toEqual([]);
    expect(await roles()).toEqual([]);
    await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: memberID }] }] });
    expect(await roles()).toEqual(['sales-emea']);
    await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${memberID}"]` }] });
    expect(await roles()).toEqual([]);

    const unknown = await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: '00000000-0000-4000-8000-000000000000' }] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidValue', detail: expect.any(String) });
    const dup = await t.http().post(path('/Groups')).set(scim()).send({ schemas: [GROUP], displayName: 'SALES emea' });
    expect(dup.status).toBe(409);

    await t.http().patch(path(`/Groups/${id}`)).set(scim()).send({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: memberID }] }] });
    expect((await t.http().delete(path(`/Groups/${id}`)).set(scim())).status).toBe(204);
    expect(await roles()).toEqual([]);
    expect((await t.http().get(path(`/Groups/${id}`)).set(scim())).status).toBe(404);
  });

  it('mails nothing on creation unless the sector asks for invitations (SCIMSendInvitations)', async () => {
    const admin = { Authorization: `Bearer ${a.adminToken}` };
    const listed = async (email: string) => (await t.http().get(`/api/v1/sectors/${sector}/users`).query({ filterEmail: email }).set(admin)).body.users[0];
    const create = (name: string) => t.http().post(path('/Users')).set(scim()).send({ schemas: [USER], userName: name, emails: [{ value: name, primary: true }] });
    expect((await create('quiet@contoso.com')).status).toBe(201);
    expect((await listed('quiet@contoso.com')).inviteStatus).not.toBe('pending');

    expect((await t.http().put(`/api/v1/sectors/${sector}/settings`).set(admin).send({ SCIMSendInvitations: true })).body.SCIMSendInvitations).toBe(true);
    try {
      const invited = await create('invited@contoso.com');
      expect(invited.status).toBe(201);
      expect((await listed('invited@contoso.com')).inviteStatus).toBe('pending');
      const trail = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ target: invited.body.id, type: 'user.invited' }).set(admin);
      expect(trail.body.events).toEqual([expect.objectContaining({ type: 'user.invited', details: { scim: true } })]);
    } finally {
      await t.http().put(`/api/v1/sectors/${sector}/settings`).set(admin).send({ SCIMSendInvitations: false });
    }
  });

  it('describes itself: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const spc = await t.http().get(path('/ServiceProviderConfig')).set(scim());
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      etag: { supported: true },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = await t.http().get(path('/ResourceTypes')).set(scim());
    expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    const schemas = await t.http().get(path('/Schemas')).set(scim());
    expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toEqual([USER, SCIM.GROUP, ENTERPRISE]);
  });
});
