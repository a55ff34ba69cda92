import { useEffect, useEffectEvent, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Trans, useTranslation } from 'react-i18next';
import { WebAuthnAbortService } from '@simplewebauthn/browser';
import type { SessionTokens } from '../api/client';
import { useAuth, type Area } from '../auth/AuthContext';
import { absolutePath, loadedAddress } from '../auth/sectorAddress';
import { Button, ErrorMessage, Field, TextInput, useAsyncAction } from '../ui';
import { ContinueSignIn } from './ContinueSignIn';
import {
  afterSignIn,
  autofillAvailable,
  FLOW_PARAM,
  foreignReturn,
  isCeremonyCancelled,
  newSocialFlow,
  organizationOf,
  passkeySignIn,
  signInApi,
  takeSocialFlow,
  useSignInContext,
  type AuthResult,
  type SocialProvider,
} from './flow';
import { PublicShell } from './PublicShell';

type Mode = 'password' | 'code' | 'magic';

/** Social returns already handled (each works once; React may mount a page twice in development). */
const handled = new Set<string>();

/** Links to the other public pages, keeping the sector. */
export function sectorLink(path: string, sectorID?: string): string {
  return sectorID ? `${path}?sector=${encodeURIComponent(sectorID)}` : path;
}

/** Completes a sign-in: stores the tokens, then goes where the user was headed. */
export function useFinishSignIn(area: Area, next: string) {
  const { signIn } = useAuth();
  const navigate = useNavigate();
  return async (tokens: SessionTokens) => {
    await signIn(tokens);
    navigate(afterSignIn(area, next), { replace: true });
  };
}

/**
 * A sign-in for an app through the OpenID Provider (InteractionPage): the page says
 * who asks, and the sign-in ends by completing the provider's request rather than
 * with a session of this app.
 */
export interface SignInFor {
  clientName: string;
  /** Prefills the username (the app's `login_hint`). */
  loginHint?: string;
  /** Where a social sign-in started here comes back to (this page, with its request and sector). */
  returnURL: string;
  /** The request: a mailed sign-in link started here carries it, and its page hands the sign-in back here. */
  interactionID: string;
  /** A sign-in finished elsewhere for this request (the mailed link's page): completed at once. */
  signedIn?: SessionTokens;
  /** Completes the request with the sign-in's tokens and leaves the page; what it throws is shown above the form. */
  complete(tokens: SessionTokens): Promise<void>;
  /** Shown above the form: the account to use, what the app asks for. */
  intro?: ReactNode;
  /** Declines the request without signing in (the app hears `access_denied`) and leaves the page; what it throws is shown above the form. */
  cancel(): Promise<void>;
}

/**
 * The sign-in page of the console and of the account page: username and password,
 * a one-time code, a passkey (with a username, or usernameless through the
 * browser's autofill), a mailed sign-in link, social providers; then the steps
 * the transaction asks for (ContinueSignIn). With `signInFor`, the same page signs
 * in for an app (the OpenID Provider's request): no mailed link then, whose mail
 * leads to the account page and not back here.
 */
export function SignInPage({ area, signInFor }: { area: Area; signInFor?: SignInFor }) {
  const { t } = useTranslation('signin');
  const { sectorID: pageSector, sectorName, providers, selfSignUpAllowed, magicLinkLoginEnabled: sectorMagicLinks, next } = useSignInContext();
  // Identifier-first on the platform's own page: `ada@acme` signs in to tenant acme's default sector.
  const [organization, setOrganization] = useState<{ sectorID: string; username: string } | null>(null);
  const sectorID = organization?.sectorID ?? pageSector;
  const findsOrganization = !signInFor && !pageSector && !loadedAddress;
  const magicLinkLoginEnabled = sectorMagicLinks;
  const [params, setParams] = useSearchParams();
  const finishHere = useFinishSignIn(area, next);
  const [mode, setMode] = useState<Mode>('password');
  const [username, setUsername] = useState(signInFor?.loginHint ?? '');
  const [password, setPassword] = useState('');
  const [pending, setPending] = useState<AuthResult | null>(null);
  const [codeSent, setCodeSent] = useState(false);
  // Back from a social provider: `?flow=…&transactionID=…&code=…` (or `error=…` when it failed), for a
  // flow this tab started. A return without a flow this tab knows, or naming another transaction than
  // the one this tab started, is refused (a link someone else sent signs nobody in).
  const socialFlow = params.get(FLOW_PARAM);
  const socialCode = params.get('code');
  const socialError = params.get('error');
  const returnedTransaction = params.get('transactionID');
  const socialReturn = socialFlow !== null || socialCode !== null || returnedTransaction !== null ? `${socialFlow}|${socialCode}|${returnedTransaction}|${socialError}` : null;
  const action = useAsyncAction({
    initialError: () =>
      socialFlow === null && (returnedTransaction !== null || socialCode !== null)
        ? foreignReturn()
        : socialError
          ? new Error(t('socialFailed', { reason: socialError }))
          : null,
  });
  const { busyWith: busy, error, setError } = action;
  const [notice, setNotice] = useState('');
  /**
   * Ends a successful sign-in. For an app, a refused completion (another sector's account,
   * a sign-in not recent enough, a request this browser did not start) shows the form again
   * with the reason, whichever step signed in (ContinueSignIn and the autofill passkey do not report errors).
   */
  const finish = signInFor
    ? async (tokens: SessionTokens) => {
        try {
          await signInFor.complete(tokens);
        } catch (e) {
          setPending(null);
          setCodeSent(false);
          setPassword('');
          setError(e);
        }
      }
    : finishHere;
  /** A result reached from an effect (social return, autofill passkey). */
  const onResult = useEffectEvent(async (result: AuthResult) => {
    if (result.status === 'SUCCESS' && result.token) await finish({ token: result.token, refreshToken: result.refreshToken });
    else setPending(result);
  });

  const handle = async (result: AuthResult) => {
    if (result.status === 'SUCCESS' && result.token) await finish({ token: result.token, refreshToken: result.refreshToken });
    else {
      setCodeSent(false);
      setPending(result);
    }
  };

  const run = (what: string, work: () => Promise<void>) => {
    setNotice('');
    return action.run(work, what);
  };

  const returnFromSocial = useEffectEvent((key: string) => {
    if (handled.has(key)) return;
    handled.add(key);
    const cleaned = new URLSearchParams(params);
    for (const name of [FLOW_PARAM, 'code', 'error', 'transactionID']) cleaned.delete(name);
    setParams(cleaned, { replace: true });
    // Only a flow this tab started, once, and only for the transaction it started; its verifier goes with the code.
    const flow = takeSocialFlow(socialFlow, 'sign-in');
    if (!flow || (returnedTransaction !== null && returnedTransaction !== flow.transactionID)) {
      if (!socialError || flow) setError(foreignReturn());
      return;
    }
    if (!socialError && socialCode) void run('social', async () => onResult(await signInApi.socialResult(socialCode, flow.verifier)));
  });
  useEffect(() => {
    // Synchronizes with the service (a one-time exchange); the busy flag it sets is the request's state.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (socialReturn) returnFromSocial(socialReturn);
  }, [socialReturn]);

  // A sign-in the mailed link's page finished for this request: completed once, its errors shown above the form.
  const handedOver = signInFor?.signedIn;
  const completeHandedOver = useEffectEvent((tokens: SessionTokens) => {
    if (handled.has(tokens.token)) return;
    handled.add(tokens.token);
    void run('link', () => finish(tokens));
  });
  useEffect(() => {
    // Synchronizes with the service (completing the request); the busy flag it sets is the request's state.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (handedOver) completeHandedOver(handedOver);
  }, [handedOver]);

  // Passkeys in the username field's autofill, where the browser supports it (conditional mediation).
  useEffect(() => {
    if (pending) return undefined;
    let active = true;
    void (async () => {
      if (!(await autofillAvailable()) || !active) return;
      try {
        const result = await passkeySignIn(sectorID, {}, { autofill: true });
        if (active) await onResult(result);
      } catch {
        // Autofill is opportunistic: a sector without passkeys, a cancelled or replaced
        // request, a relying party this origin cannot use. The buttons remain.
      }
    })();
    return () => {
      active = false;
      WebAuthnAbortService.cancelCeremony();
    };
  }, [sectorID, pending]);

  /** The sector and login name a step goes to: the page's, or the organization a login name like `ada@acme` names. */
  const target = async (): Promise<{ sectorID: string | undefined; login: string }> => {
    const login = username.trim();
    if (!findsOrganization) return { sectorID, login };
    const found = await organizationOf(login);
    setOrganization(found ? { sectorID: found.options.sectorID, username: found.username } : null);
    return found ? { sectorID: found.options.sectorID, login: found.username } : { sectorID: pageSector, login };
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mode === 'password') {
      void run('password', async () => {
        const to = await target();
        await handle(await signInApi.password(to.sectorID, { username: to.login, password }));
      });
    } else if (mode === 'code') {
      // A code as the first factor: the password follows (MFA_REQUIRED / PASSWORD).
      void run('code', async () => {
        const to = await target();
        const { transactionID } = await signInApi.otpBegin(to.sectorID, { username: to.login });
        setCodeSent(true);
        setPending({ transactionID, status: 'MFA_REQUIRED', challengeType: 'OTP' });
      });
    } else {
      void run('magic', async () => {
        const to = await target();
        const login = to.login.includes('@') ? { email: to.login } : { username: to.login };
        await signInApi.magicBegin(to.sectorID, signInFor ? { ...login, interactionID: signInFor.interactionID } : login);
        setNotice(
          signInFor
            ? t('linkSentFor', { client: signInFor.clientName })
            : t('linkSent'),
        );
      });
    }
  };

  const withPasskey = () =>
    run('passkey', async () => {
      try {
        await handle(await passkeySignIn(sectorID, username.trim() ? { username: username.trim() } : {}));
      } catch (e) {
        if (isCeremonyCancelled(e)) throw new Error(t('passkeyClosed'));
        throw e;
      }
    });

  const social = (provider: SocialProvider) =>
    run(provider, async () => {
      const back = new URL(signInFor ? signInFor.returnURL : absolutePath(`/${area}/sign-in`), window.location.origin);
      if (!signInFor) {
        if (sectorID) back.searchParams.set('sector', sectorID);
        if (next) back.searchParams.set('next', next);
      }
      const flow = newSocialFlow(back);
      const start = await signInApi.socialInitiate(sectorID, provider, flow.redirectURI);
      flow.remember('sign-in', start);
      window.location.assign(start.authURL);
    });

  const title = signInFor
    ? t('title.for', { client: signInFor.clientName })
    : sectorName
      ? t(area === 'console' ? 'title.consoleSector' : 'title.accountSector', { sector: sectorName })
      : t(area === 'console' ? 'title.console' : 'title.account');

  if (pending) {
    return (
      <PublicShell title={title} area={area}>
        <ContinueSignIn
          sectorID={sectorID}
          result={pending}
          username={organization?.username ?? username}
          codeSent={codeSent}
          onDone={(tokens) => void finish(tokens)}
          onRestart={() => {
            setPending(null);
            setCodeSent(false);
            setPassword('');
            setError(null);
            setOrganization(null);
          }}
        />
      </PublicShell>
    );
  }

  return (
    <PublicShell title={title} area={area}>
      {signInFor && sectorName ? <p>{t('useAccount', { sector: sectorName })}</p> : null}
      {signInFor?.intro}
      <div className="tabs" role="group" aria-label={t('with')}>
        <Button aria-pressed={mode === 'password'} onClick={() => setMode('password')}>{t('mode.password')}</Button>
        <Button aria-pressed={mode === 'code'} onClick={() => setMode('code')}>{t('mode.code')}</Button>
        {magicLinkLoginEnabled ? <Button aria-pressed={mode === 'magic'} onClick={() => setMode('magic')}>{t('mode.magic')}</Button> : null}
      </div>
      <form onSubmit={submit} className="stack" noValidate>
        <ErrorMessage error={error} />
        {notice ? <p className="notice success" role="status">{notice}</p> : null}
        <Field label={mode === 'password' ? t('usernameOrEmail') : t('emailOrUsername')}>
          {(p) => (
            <TextInput
              {...p}
              name="username"
              autoComplete="username webauthn"
              autoCapitalize="none"
              spellCheck={false}
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              required
            />
          )}
        </Field>
        {mode === 'password' ? (
          <Field label={t('password')}>
            {(p) => <TextInput {...p} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />}
          </Field>
        ) : null}
        <Button type="submit" variant="primary" className="btn-block" busy={busy === mode} disabled={!username.trim() || (mode === 'password' && !password)}>
          {t(`submit.${mode}`)}
        </Button>
        {mode === 'code' ? <p className="hint">{t('codeHint')}</p> : null}
        {findsOrganization ? (
          <p className="hint">
            <Trans t={t} i18nKey="organizationHint" components={{ code: <code /> }} />
          </p>
        ) : null}
      </form>
      <p className="divider">{t('or')}</p>
      <div className="stack">
        <Button className="btn-block" busy={busy === 'passkey'} onClick={() => void withPasskey()}>{t('passkey')}</Button>
        {providers.map((provider) => (
          <Button key={provider} className="btn-block" busy={busy === provider} onClick={() => void social(provider)}>
            {t('continueWith', { provider: t(`provider.${provider}`) })}
          </Button>
        ))}
      </div>
      <p className="links">
        <Link to={sectorLink('/account/forgot-password', sectorID)}>{t('forgot')}</Link>
        {selfSignUpAllowed ? <Link to={sectorLink('/account/signup', sectorID)}>{t('createAccount')}</Link> : null}
      </p>
      {findsOrganization ? <OrganizationChooser area={area} /> : null}
      {signInFor ? (
        <p>
          <Button variant="link" busy={busy === 'cancel'} disabled={busy !== '' && busy !== 'cancel'} onClick={() => void run('cancel', signInFor.cancel)}>
            {t('cancelToApp')}
          </Button>
        </p>
      ) : null}
    </PublicShell>
  );
}

/**
 * On the platform's own sign-in page: goes to an organization's (a tenant's)
 * sign-in page by its name. Only tenants' names are looked up, never accounts.
 */
function OrganizationChooser({ area }: { area: Area }) {
  const { t } = useTranslation('signin');
  const [name, setName] = useState('');
  const [problem, setProblem] = useState('');
  const { busy, error, run } = useAsyncAction();
  const go = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const found = await organizationOf(`_@${name.trim().toLowerCase()}`);
      if (!found) {
        setProblem(t('organization.unknown'));
        return;
      }
      setProblem('');
      const { tenantSlug, sectorSlug, isDefaultSector } = found.options;
      const prefix = isDefaultSector ? `/t/${encodeURIComponent(tenantSlug)}` : `/t/${encodeURIComponent(tenantSlug)}/${encodeURIComponent(sectorSlug)}`;
      window.location.assign(`${prefix}/${area}/sign-in`);
    });
  };
  return (
    <details className="organization-chooser">
      <summary>{t('organization.summary')}</summary>
      <form onSubmit={go} className="stack" noValidate>
        <ErrorMessage error={error} />
        <Field label={t('organization.label')} hint={t('organization.hint')} error={problem || undefined}>
          {(p) => <TextInput {...p} autoCapitalize="none" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} required />}
        </Field>
        <Button type="submit" busy={busy} disabled={!name.trim()}>{t('organization.continue')}</Button>
      </form>
    </details>
  );
}
