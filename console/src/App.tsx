import { Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { RequireAuth } from './auth/AuthContext';
import { lazyScreen, Loading, ScreenBoundary } from './ui';
import { SignInPage } from './signin/SignInPage';
import { LinkPage } from './signin/LinkPage';
import { SignUpPage } from './signin/SignUpPage';
import { ForgotPasswordPage } from './signin/ForgotPasswordPage';
import { InteractionPage } from './signin/InteractionPage';
import { SectorAddressGate } from './signin/SectorAddressGate';
import { LinkReturnPage } from './account/LinkedSection';

const AdminApp = lazyScreen(() => import('./admin/AdminApp'));
const AccountApp = lazyScreen(() => import('./account/AccountApp'));

/**
 * The SPA's routes. `/console/*` is the admin console (console/src/admin), `/account/*`
 * the user's own account page; each area has its sign-in page. The same routes serve
 * a tenant's sectors under `/t/{tenant}/[{sector}/]` (the router's basename, see
 * auth/sectorAddress), where the mailed links of the sector land too. Links mailed by the
 * service (invitation, password reset, magic link, email verification) land on
 * `/account/link` when the sector's MagicLinkURL points there. The OpenID Provider
 * sends the browser to `/api/v1/oidc/interactions/{id}?interaction={id}&sector={sectorID}`
 * to sign in for an app: the service answers a browser there with this app, and the
 * sign-in page completes the provider's request.
 */
export function App() {
  const location = useLocation();
  return (
    <SectorAddressGate>
    <Suspense fallback={<main className="page"><Loading /></main>}>
      <ScreenBoundary resetKey={location.pathname}>
      <Routes>
        <Route path="/console/sign-in" element={<SignInPage area="console" />} />
        <Route path="/console/*" element={<RequireAuth area="console"><AdminApp /></RequireAuth>} />
        <Route path="/account/sign-in" element={<SignInPage area="account" />} />
        <Route path="/account/signup" element={<SignUpPage />} />
        <Route path="/account/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/account/link" element={<LinkPage />} />
        <Route path="/account/linked" element={<LinkReturnPage />} />
        {/* The service's default mail links (a sector without MagicLinkURL): the same page. */}
        {['/invite', '/reset-password', '/magic-link', '/verify-email', '/confirm-email'].map((path) => (
          <Route key={path} path={path} element={<LinkPage />} />
        ))}
        <Route path="/api/v1/oidc/interactions/:interactionID" element={<InteractionPage />} />
        <Route path="/account/*" element={<RequireAuth area="account"><AccountApp /></RequireAuth>} />
        <Route path="*" element={<Navigate to="/account" replace />} />
      </Routes>
      </ScreenBoundary>
    </Suspense>
    </SectorAddressGate>
  );
}
