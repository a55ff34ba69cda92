import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { signInPath, useAuth } from '../auth/AuthContext';
import { Button, errorText, Page, ScreenBoundary, useToast } from '../ui';
import { accountApi } from './accountApi';
import { AppsSection } from './AppsSection';
import { FactorsSection } from './FactorsSection';
import { LinkedSection } from './LinkedSection';
import { PasskeysSection } from './PasskeysSection';
import { PasswordSection } from './PasswordSection';
import { ProfileSection } from './ProfileSection';
import { SessionsSection } from './SessionsSection';
import { StepUpProvider } from './StepUp';
import { BrandFooter, BrandLogo, useBrandLook, useSectorOptions } from '../signin/brandLook';
import { LanguageSwitcher } from '../signin/LanguageSwitcher';
import { useSectorLanguage, useUserLanguage } from '../i18n/language';
import { catalogueLanguage } from '../i18n';

/** The page's sections, in order (their names: `account:parts.*`). */
const PARTS = ['profile', 'password', 'factors', 'passkeys', 'linked', 'sessions', 'apps'] as const;

/** The signed-in user's own account page: everything through the public API with their access token. */
export default function AccountApp() {
  const { t } = useTranslation('account');
  const toast = useToast();
  const queryClient = useQueryClient();
  const { me, signOut } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const sub = me!.sub;
  const profile = useQuery({ queryKey: ['account', sub, 'profile'], queryFn: () => accountApi.profile(sub) });
  const options = useSectorOptions(me?.sectorID);
  const branding = options?.branding;
  useBrandLook(branding);
  // The page speaks the user's language (their profile's locale), else as the public pages choose.
  useUserLanguage(profile.data?.locale || undefined);
  useSectorLanguage(options?.defaultLanguage);

  /** A language picked here becomes the account's language too (the profile's locale; no recent sign-in is needed for it). */
  const saveLanguage = (language: string) => {
    if (catalogueLanguage(profile.data?.locale) === language) return;
    // Said in the language just picked (this render's `t` still speaks the one before).
    accountApi.updateProfile(sub, { locale: language }).then(
      () => {
        toast(t('languageSaved', { lng: language }));
        void queryClient.invalidateQueries({ queryKey: ['account', sub, 'profile'] });
      },
      (error: unknown) => toast(errorText(error), 'error'),
    );
  };

  const leave = async () => {
    const sector = me?.sectorID;
    await signOut();
    navigate(signInPath('account', { sector }), { replace: true });
  };

  return (
    <>
      <a className="skip-link" href="#main">{t('skip')}</a>
      <header className="app-header">
        <BrandLogo branding={branding} />
        <span className="brand">{t('title')}</span>
        <nav aria-label={t('sections')}>
          <ul>
            {PARTS.map((part) => (
              <li key={part}><a href={`#${part}-heading`}>{t(`parts.${part}`)}</a></li>
            ))}
          </ul>
        </nav>
        <div className="actions">
          <span className="muted">{me?.username}</span>
          {me?.isAdmin ? <Link to="/console">{t('console')}</Link> : null}
          <Button onClick={() => void leave()}>{t('signOut')}</Button>
        </div>
      </header>
      <ScreenBoundary resetKey={location.pathname}>
      <Page title={t('title')}>
        <StepUpProvider sub={sub}>
          <ProfileSection sub={sub} />
          <PasswordSection sub={sub} />
          <FactorsSection sub={sub} phone={profile.data?.phoneNumber} email={profile.data?.email} />
          <PasskeysSection sub={sub} />
          <LinkedSection sub={sub} />
          <SessionsSection sub={sub} />
          <AppsSection sub={sub} />
        </StepUpProvider>
        <BrandFooter branding={branding} />
        <LanguageSwitcher onPicked={saveLanguage} />
      </Page>
      </ScreenBoundary>
    </>
  );
}
