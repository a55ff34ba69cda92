import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiError, type SessionTokens } from '../api/client';
import { Button, ErrorMessage, Loading } from '../ui';
import { ConsentStep } from './ConsentStep';
import { httpURL, interactionApi, needsConsent, nextAddress, requestEnded, scopeWords, type HandOver, type InteractionDetails } from './interaction';
import { PublicShell } from './PublicShell';
import { SignInPage } from './SignInPage';

/**
 * The OpenID Provider's sign-in page, `/api/v1/oidc/interactions/{id}?interaction={id}&sector={sectorID}`
 * (the provider sends the browser here; the service answers a browser with this app).
 * Without `?interaction=` it is the account's plain sign-in page.
 */
export function InteractionPage() {
  const { interactionID = '' } = useParams();
  const [params] = useSearchParams();
  const requested = params.get('interaction');
  if (requested === null) return <SignInPage area="account" />;
  // The query names the same request as the path (the provider's cookie is scoped to the path); anything else is no request.
  return <InteractionSignIn key={interactionID} interactionID={requested === interactionID ? interactionID : ''} />;
}

/**
 * Loads the request, then shows the sector's sign-in page for it; a successful sign-in
 * completes the request with its access token and sends the browser where the
 * provider says (back to the app). A third-party app the user has not allowed yet
 * gets the consent step first, with the sign-in's tokens kept in memory meanwhile.
 * The user may also decline from the sign-in step ("Cancel and go back").
 */
function InteractionSignIn({ interactionID }: { interactionID: string }) {
  const { t } = useTranslation(['signin', 'common']);
  const location = useLocation();
  const [params] = useSearchParams();
  const details = useQuery({
    queryKey: ['oidc-interaction', interactionID],
    queryFn: () => interactionApi.details(interactionID),
    enabled: interactionID !== '',
    staleTime: Infinity,
    retry: false,
  });
  /** The request ended while the user signed in (complete answered 404). */
  const [ended, setEnded] = useState(false);
  /** Completed: the browser is on its way back to the app. */
  const [leaving, setLeaving] = useState(false);
  /** Signed in, waiting for the user's consent: the sign-in's tokens (memory only). */
  const [consenting, setConsenting] = useState<SessionTokens | null>(null);
  /** A sign-in the mailed link's page finished for this request (handed over in the history entry, taken out at once). */
  const [signedIn] = useState<SessionTokens | undefined>(() => (location.state as HandOver | null)?.signedIn);
  const navigate = useNavigate();
  useEffect(() => {
    if ((location.state as HandOver | null)?.signedIn) navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
  }, [location, navigate]);

  const data = details.data;
  const notFound = interactionID === '' || ended || (details.error instanceof ApiError && details.error.status === 404);

  if (notFound) {
    return (
      <PublicShell title={t('request.endedTitle')}>
        <div className="error-message" role="alert">
          {/* The reasons a request is no longer there (404 NOT_FOUND), in words. */}
          <p>{t('request.ended')}</p>
        </div>
        {data ? <ReturnLink details={data} /> : null}
      </PublicShell>
    );
  }

  if (details.error) {
    return (
      <PublicShell title={t('request.title')}>
        <ErrorMessage error={details.error} title={t('request.loadFailed')} />
        <p>
          <Button variant="primary" busy={details.isFetching} onClick={() => void details.refetch()}>{t('common:tryAgain')}</Button>
        </p>
      </PublicShell>
    );
  }

  if (!data) {
    return (
      <PublicShell title={t('request.title')}>
        <Loading label={t('request.loading')} />
      </PublicShell>
    );
  }

  const clientName = data.client.clientName || t('request.theApp');

  if (leaving) {
    return (
      <PublicShell title={t('title.for', { client: clientName })}>
        <Loading label={t('request.returning', { client: clientName })} />
      </PublicShell>
    );
  }

  // The page signs in to the request's sector, whatever the address says.
  if (params.get('sector') !== data.sectorID) {
    const fixed = new URLSearchParams(params);
    fixed.set('sector', data.sectorID);
    return <Navigate to={{ pathname: location.pathname, search: `?${fixed.toString()}` }} replace />;
  }

  const leave = (target: string) => {
    setLeaving(true);
    window.location.assign(target);
  };

  if (consenting) {
    return <ConsentStep details={data} tokens={consenting} links={<AppLinks details={data} />} onEnded={() => setEnded(true)} onLeave={leave} />;
  }

  const complete = async (tokens: SessionTokens) => {
    let target: string;
    try {
      target = nextAddress(await interactionApi.complete(interactionID, tokens.token));
    } catch (e) {
      // A third-party app the user has not allowed (yet, or again): the sign-in is kept for the consent step.
      if (needsConsent(e)) {
        setConsenting(tokens);
        return;
      }
      // The tokens are dropped: end their session at the service (best effort).
      interactionApi.endSession(tokens.token).catch(() => undefined);
      if (requestEnded(e)) {
        setEnded(true);
        return;
      }
      // The service's words say what to do: sign in to the app's sector (403), start again from the
      // app in this browser (403), or sign in again (400, prompt=login or max_age).
      throw e;
    }
    leave(target);
  };

  /** Declines the request without signing in: the app hears `access_denied`. */
  const cancel = async () => {
    let target: string;
    try {
      target = nextAddress(await interactionApi.deny(interactionID));
    } catch (e) {
      if (requestEnded(e)) {
        setEnded(true);
        return;
      }
      throw e;
    }
    leave(target);
  };

  const returnURL = `${location.pathname}?${new URLSearchParams({ interaction: interactionID, sector: data.sectorID }).toString()}`;

  return (
    <SignInPage
      area="account"
      signInFor={{ clientName, loginHint: data.loginHint, returnURL, interactionID, signedIn, complete, cancel, intro: <RequestIntro details={data} /> }}
    />
  );
}

/** Who asks and, for an app of someone else, what it asks for (the consent step follows the sign-in); its registered links. */
function RequestIntro({ details }: { details: InteractionDetails }) {
  const { t } = useTranslation('signin');
  const { client } = details;
  const asked = client.firstParty ? [] : scopeWords(details.scopes);
  return (
    <>
      {asked.length > 0 ? (
        <div>
          <p>{t('request.asksFor', { client: client.clientName || t('request.theAppStart') })}</p>
          <ul>
            {asked.map((words) => (
              <li key={words}>{words}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <AppLinks details={details} />
    </>
  );
}

/** The app's registered links (http(s) only). */
function AppLinks({ details }: { details: InteractionDetails }) {
  const { t } = useTranslation('signin');
  const { client } = details;
  const links = [
    { href: httpURL(client.clientURI), label: t('request.about', { client: client.clientName || t('request.theApp') }) },
    { href: httpURL(client.policyURI), label: t('request.privacy') },
    { href: httpURL(client.tosURI), label: t('request.terms') },
  ].filter((link): link is { href: string; label: string } => link.href !== undefined);
  return links.length > 0 ? (
    <p className="links">
      {links.map((link) => (
        <a key={link.label} href={link.href} rel="noopener noreferrer">
          {link.label}
        </a>
      ))}
    </p>
  ) : null;
}

/** After the request ended: a way back to the app, if it registered its address. */
function ReturnLink({ details }: { details: InteractionDetails }) {
  const { t } = useTranslation('signin');
  const href = httpURL(details.client.clientURI);
  return href ? (
    <p>
      <a href={href} rel="noopener noreferrer">{t('request.returnTo', { client: details.client.clientName || t('request.theApp') })}</a>
    </p>
  ) : null;
}
