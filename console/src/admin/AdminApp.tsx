import { Suspense, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, Outlet, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { StepUpProvider } from '../account/StepUp';
import { LanguageSwitcher } from '../signin/LanguageSwitcher';
import { useAuth } from '../auth/AuthContext';
import { Button, EmptyState, lazyScreen, Loading, Page, ScreenBoundary, Select } from '../ui';
import './admin.css';
import { abilitiesOf, SECTOR_SCREENS, sectorPath, type SectorScreen } from './nav';
import { useSectorChoices, useSectorID, useSectorName } from './sectorContext';

const TenantsPage = lazyScreen(() => import('./tenants/TenantsPage'));
const SectorsPage = lazyScreen(() => import('./sectors/SectorsPage'));
const SettingsPage = lazyScreen(() => import('./settings/SettingsPage'));
const UsersPage = lazyScreen(() => import('./users/UsersPage'));
const UserPage = lazyScreen(() => import('./users/UserPage'));
const RolesPage = lazyScreen(() => import('./roles/RolesPage'));
const TokensPage = lazyScreen(() => import('./tokens/TokensPage'));
const OAuthPage = lazyScreen(() => import('./oauth/OAuthPage'));
const ClientsPage = lazyScreen(() => import('./clients/ClientsPage'));
const WebhooksPage = lazyScreen(() => import('./webhooks/WebhooksPage'));
const DashboardPage = lazyScreen(() => import('./dashboard/DashboardPage'));
const AuditPage = lazyScreen(() => import('./audit/AuditPage'));

/** The sector the screens administer, by name, where there is no switcher to show it. */
function CurrentSector({ sectorID }: { sectorID: string }) {
  const { t } = useTranslation('admin');
  const name = useSectorName(sectorID);
  return name ? <span className="admin-header__sector">{t('currentSector', { name })}</span> : null;
}

/** Lets a default-sector admin pick the sector the sector screens administer (the first 100 of the tenant). */
function SectorSwitcher() {
  const { t } = useTranslation('admin');
  const sectorID = useSectorID();
  const choices = useSectorChoices(true);
  const navigate = useNavigate();
  const location = useLocation();
  const screen = (SECTOR_SCREENS.find((s) => location.pathname.endsWith(`/${s.screen}`))?.screen ?? 'users') as SectorScreen;
  if (!choices.data || choices.data.sectors.length < 2) return <CurrentSector sectorID={sectorID} />;
  const known = choices.data.sectors.some((s) => s.sectorID === sectorID);
  return (
    <div className="sector-switcher">
      <label htmlFor="sector-switcher">{t('sector')}</label>
      <Select id="sector-switcher" value={sectorID} onChange={(e) => navigate(sectorPath(e.target.value, screen))}>
        {!known ? <option value={sectorID}>{sectorID}</option> : null}
        {choices.data.sectors.map((s) => (
          <option key={s.sectorID} value={s.sectorID}>
            {s.name}
            {s.isDefault ? t('defaultSuffix') : ''}
          </option>
        ))}
      </Select>
    </div>
  );
}

function AdminLayout() {
  const { t } = useTranslation('admin');
  const { me, signOut } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const can = abilitiesOf(me);
  const sectorID = useSectorID();
  const [signingOut, setSigningOut] = useState(false);
  const out = async () => {
    setSigningOut(true);
    await signOut();
    navigate('/console/sign-in', { replace: true });
  };
  return (
    <>
      <a className="skip-link" href="#main">
        {t('skip')}
      </a>
      <header className="app-header admin-header">
        <Link className="brand" to="/console">
          {t('brand')}
        </Link>
        <nav aria-label={t('nav.label')}>
          <ul>
            {can.tenants ? (
              <li>
                <NavLink to="/console/tenants">{t('nav.tenants')}</NavLink>
              </li>
            ) : null}
            {can.sectors ? (
              <li>
                <NavLink to="/console/sectors" end>
                  {t('nav.sectors')}
                </NavLink>
              </li>
            ) : null}
            {can.sectorAdmin
              ? SECTOR_SCREENS.map((s) => (
                  <li key={s.screen}>
                    <NavLink to={sectorPath(sectorID, s.screen)}>{t(`nav.${s.screen}`)}</NavLink>
                  </li>
                ))
              : null}
            <li>
              <Link to="/account">{t('nav.account')}</Link>
            </li>
          </ul>
        </nav>
        <div className="admin-header__user">
          {can.anySector ? <SectorSwitcher /> : can.sectorAdmin ? <CurrentSector sectorID={sectorID} /> : null}
          <span className="muted" title={me?.sub}>
            {me?.username}
          </span>
          <Button onClick={() => void out()} busy={signingOut}>
            {t('signOut')}
          </Button>
        </div>
      </header>
      {/* An admin editing their own account here needs a recent sign-in like on the account page. */}
      <StepUpProvider sub={me?.sub ?? ''}>
        <ScreenBoundary resetKey={location.pathname}>
          <Suspense fallback={<Page title={t('loading')}><Loading /></Page>}>
            <Outlet />
          </Suspense>
        </ScreenBoundary>
      </StepUpProvider>
      <footer className="admin-footer">
        <LanguageSwitcher />
      </footer>
    </>
  );
}

/** The start page: the first screen the admin may use. */
function Home() {
  const { me } = useAuth();
  const can = abilitiesOf(me);
  if (can.sectorAdmin && me) return <Navigate to={sectorPath(me.sectorID, 'dashboard')} replace />;
  if (can.tenants) return <Navigate to="/console/tenants" replace />;
  return <NotAdmin />;
}

function NotAdmin() {
  const { t } = useTranslation('admin');
  return (
    <Page title={t('notAdmin.page')}>
      <EmptyState title={t('notAdmin.title')}>
        <p>
          <Trans t={t} i18nKey="notAdmin.body" components={{ to: <Link to="/account" /> }} />
        </p>
      </EmptyState>
    </Page>
  );
}

/** Renders a screen only for those the role matrix lets use it. */
function Allow({ when, children }: { when: boolean; children: React.ReactNode }) {
  return when ? <>{children}</> : <NotAllowed />;
}

function NotAllowed() {
  const { t } = useTranslation('admin');
  return (
    <Page title={t('notAllowed.page')}>
      <EmptyState title={t('notAllowed.title')}>
        <p>
          <Trans t={t} i18nKey="notAllowed.body" components={{ to: <Link to="/console" /> }} />
        </p>
      </EmptyState>
    </Page>
  );
}

/** A sector screen: a sector admin sees only their own sector; a default-sector admin any of the tenant's. */
function SectorScreenRoute({ children }: { children: React.ReactNode }) {
  const { me } = useAuth();
  const { sectorID } = useParams();
  const can = abilitiesOf(me);
  if (!can.sectorAdmin) return <NotAdmin />;
  if (!can.anySector && sectorID !== me?.sectorID) return <NotAllowed />;
  return <>{children}</>;
}

function NotFound() {
  const { t } = useTranslation('admin');
  return (
    <Page title={t('notFound.page')}>
      <EmptyState title={t('notFound.title')}>
        <p>
          <Link to="/console">{t('notFound.back')}</Link>
        </p>
      </EmptyState>
    </Page>
  );
}

/** The admin console, mounted at /console/* (behind the sign-in). */
export default function AdminApp() {
  const { me } = useAuth();
  const can = abilitiesOf(me);
  return (
    <Routes>
      <Route element={<AdminLayout />}>
        <Route index element={<Home />} />
        <Route path="tenants" element={<Allow when={can.tenants}><TenantsPage /></Allow>} />
        <Route path="sectors" element={<Allow when={can.sectors}><SectorsPage /></Allow>} />
        <Route path="sectors/:sectorID/users" element={<SectorScreenRoute><UsersPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/users/:sub" element={<SectorScreenRoute><UserPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/roles" element={<SectorScreenRoute><RolesPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/settings" element={<SectorScreenRoute><SettingsPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/tokens" element={<SectorScreenRoute><TokensPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/oauth" element={<SectorScreenRoute><OAuthPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/clients" element={<SectorScreenRoute><ClientsPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/webhooks" element={<SectorScreenRoute><WebhooksPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/dashboard" element={<SectorScreenRoute><DashboardPage /></SectorScreenRoute>} />
        <Route path="sectors/:sectorID/audit" element={<SectorScreenRoute><AuditPage /></SectorScreenRoute>} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
