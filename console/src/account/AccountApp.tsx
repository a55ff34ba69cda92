import { useQuery } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { signInPath, useAuth } from '../auth/AuthContext';
import { Button, Page, ScreenBoundary } from '../ui';
import { accountApi } from './accountApi';
import { AppsSection } from './AppsSection';
import { FactorsSection } from './FactorsSection';
import { LinkedSection } from './LinkedSection';
import { PasskeysSection } from './PasskeysSection';
import { PasswordSection } from './PasswordSection';
import { ProfileSection } from './ProfileSection';
import { SessionsSection } from './SessionsSection';
import { StepUpProvider } from './StepUp';
import { BrandFooter, BrandLogo, useBrandLook, useSectorBranding } from '../signin/brandLook';

const PARTS = [
  { id: 'profile', label: 'Profile' },
  { id: 'password', label: 'Password' },
  { id: 'factors', label: 'Two-step verification' },
  { id: 'passkeys', label: 'Passkeys' },
  { id: 'linked', label: 'Linked accounts' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'apps', label: 'Apps' },
];

/** The signed-in user's own account page: everything through the public API with their access token. */
export default function AccountApp() {
  const { me, signOut } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const sub = me!.sub;
  const profile = useQuery({ queryKey: ['account', sub, 'profile'], queryFn: () => accountApi.profile(sub) });
  const branding = useSectorBranding(me?.sectorID);
  useBrandLook(branding);

  const leave = async () => {
    const sector = me?.sectorID;
    await signOut();
    navigate(signInPath('account', { sector }), { replace: true });
  };

  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="app-header">
        <BrandLogo branding={branding} />
        <span className="brand">Your account</span>
        <nav aria-label="Account sections">
          <ul>
            {PARTS.map((p) => (
              <li key={p.id}><a href={`#${p.id}-heading`}>{p.label}</a></li>
            ))}
          </ul>
        </nav>
        <div className="actions">
          <span className="muted">{me?.username}</span>
          {me?.isAdmin ? <Link to="/console">Console</Link> : null}
          <Button onClick={() => void leave()}>Sign out</Button>
        </div>
      </header>
      <ScreenBoundary resetKey={location.pathname}>
      <Page title="Your account">
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
      </Page>
      </ScreenBoundary>
    </>
  );
}
