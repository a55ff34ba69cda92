import { SectorSettingsEntity } from './sector-settings.entity';
import { toSettingsPatch, toSettingsResponse } from './settings.mapper';

describe('settings mapper', () => {
  it('emits every interface field, int64 as strings', () => {
    const entity = Object.assign(new SectorSettingsEntity(), {
      sectorId: 's',
      mfaRequired: true,
      inviteExpirationHours: '168',
      accessTokenDuration: '3600',
      passwordResetTimeoutMinutes: '15',
      sessionLifetimeSeconds: '2592000',
      sessionIdleTimeoutSeconds: '604800',
      auditRetentionDays: '365',
      webauthnRpOrigins: ['https://a.example'],
      localizedTemplates: { de: { OTPEmailSubject: 'Ihr Code' } },
      brandLogoVersion: 'v1',
      brandFaviconVersion: '',
    });
    const wire = toSettingsResponse(entity, 'https://id.example');
    expect(Object.keys(wire)).toHaveLength(40);
    expect(wire).toMatchObject({ sectorID: 's', MFARequired: true, InviteExpirationHours: '168', AccessTokenDuration: '3600', WebAuthnRPOrigins: ['https://a.example'] });
    expect(wire).toMatchObject({ LocalizedTemplates: { de: { OTPEmailSubject: 'Ihr Code' } }, BrandLogoURL: 'https://id.example/api/v1/branding/s/logo/v1', BrandFaviconURL: '' });
  });

  it('patches only the fields present, "0" meaning the default', () => {
    expect(toSettingsPatch({ MFARequired: false, AccessTokenDuration: '0', OTPEmailSubject: '' })).toEqual({
      mfaRequired: false,
      accessTokenDuration: '3600',
      otpEmailSubject: '',
    });
  });
});
