import { SERVICE_EVENT_TYPES } from '../events/service-event';
import { AUDIT_EVENT_TYPES } from './audit-event';
import { announcementOf } from './announced-events';

const user = { kind: 'user', id: 'u1' };

describe('service events announced by audit events', () => {
  it('map the user, password and API token changes, with ids and names only', () => {
    expect(announcementOf({ type: 'user.created', sectorId: 's', target: user, details: { isAdmin: false, invited: true } })).toEqual({
      type: 'user.created',
      data: { userID: 'u1', isAdmin: false, invited: true },
    });
    expect(announcementOf({ type: 'user.updated', sectorId: 's', target: user, details: { fields: ['email'], scim: true } })).toEqual({
      type: 'user.updated',
      data: { userID: 'u1', fields: ['email'], source: 'scim' },
    });
    expect(announcementOf({ type: 'password.reset', sectorId: 's', target: user })).toEqual({ type: 'user.password_changed', data: { userID: 'u1', reset: true, self: true } });
    expect(announcementOf({ type: 'password.changed', sectorId: 's', target: user, details: { self: false } })).toEqual({
      type: 'user.password_changed',
      data: { userID: 'u1', reset: false, self: false },
    });
    expect(announcementOf({ type: 'api_token.created', sectorId: 's', target: { kind: 'apiToken', id: 't1' }, details: { name: 'ci', prefix: 'iam_ab' } })).toEqual({
      type: 'api_token.created',
      data: { tokenID: 't1', name: 'ci', prefix: 'iam_ab' },
    });
  });

  it('announce nothing for failures, events without a subject, and events that are not service events', () => {
    expect(announcementOf({ type: 'user.created', sectorId: 's', target: user, outcome: 'failure' })).toBeUndefined();
    expect(announcementOf({ type: 'user.created', sectorId: 's' })).toBeUndefined();
    expect(announcementOf({ type: 'sign_in', sectorId: 's', target: user })).toBeUndefined();
    expect(announcementOf({ type: 'settings.updated', sectorId: 's', target: { kind: 'sector', id: 's' } })).toBeUndefined();
  });

  it('only ever announce listed event types', () => {
    for (const type of AUDIT_EVENT_TYPES) {
      const announced = announcementOf({ type, sectorId: 's', target: user });
      if (announced) expect(SERVICE_EVENT_TYPES).toContain(announced.type);
    }
  });
});
