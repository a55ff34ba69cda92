import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { SessionTokens } from '../api/client';
import { Button, ErrorMessage, useAsyncAction } from '../ui';
import { AppLogo } from './AppLogo';
import { useSignInContext } from './flow';
import { interactionApi, nextAddress, requestEnded, scopeWords, type InteractionDetails } from './interaction';
import { PublicShell } from './PublicShell';

interface ConsentStepProps {
  details: InteractionDetails;
  /** The sign-in that is waiting for the user's answer: kept in memory only, never stored. */
  tokens: SessionTokens;
  /** Links the app registered (shown under what it asks for). */
  links: ReactNode;
  /** The request is gone: the page says so. */
  onEnded(): void;
  /** Answered: the browser goes back to the app. */
  onLeave(target: string): void;
}

/**
 * The consent step of a third-party app (the service answered OIDC_CONSENT_REQUIRED after
 * the sign-in): who asks, that it is not one of the sector's own apps, what it would see,
 * and Allow or Deny. Allow completes the request again with the user's consent; Deny
 * declines it (the app receives `error=access_denied`) and ends the sign-in, which was
 * only for this app. The heading takes focus, as the step replaces the sign-in form in place.
 */
export function ConsentStep({ details, tokens, links, onEnded, onLeave }: ConsentStepProps) {
  const { t } = useTranslation('signin');
  const { sectorName } = useSignInContext();
  const action = useAsyncAction();
  const { client } = details;
  const clientName = client.clientName || t('request.theAppStart');
  const words = scopeWords(details.scopes);

  /** The request ended meanwhile: its sign-in is of no use any more (ended best effort). */
  const ended = () => {
    interactionApi.endSession(tokens.token).catch(() => undefined);
    onEnded();
  };

  const allow = () =>
    action.run(async () => {
      let target: string;
      try {
        target = nextAddress(await interactionApi.complete(details.interactionID, tokens.token, true));
      } catch (e) {
        if (requestEnded(e)) {
          ended();
          return;
        }
        // The sign-in is kept: the user may try again, or deny.
        throw e;
      }
      onLeave(target);
    }, 'allow');

  const deny = () =>
    action.run(async () => {
      let target: string;
      try {
        target = nextAddress(await interactionApi.deny(details.interactionID));
      } catch (e) {
        if (requestEnded(e)) {
          ended();
          return;
        }
        throw e;
      }
      // Awaited before leaving: the navigation would cut the request short.
      await interactionApi.endSession(tokens.token).catch(() => undefined);
      onLeave(target);
    }, 'deny');

  return (
    <PublicShell title={t('consent.title', { client: clientName })} focusTitle>
      <div className="app-head">
        <AppLogo uri={client.logoURI} name={clientName} />
        {/* Only a third-party app asks; an app of the sector's own never needs consent. */}
        {client.firstParty ? null : (
          <p>{t('consent.thirdParty', { client: clientName, sector: sectorName || t('consent.thisService') })}</p>
        )}
      </div>
      {words.length > 0 ? (
        <div>
          <p>{t('consent.canSee', { client: clientName })}</p>
          <ul>
            {words.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {links}
      <ErrorMessage error={action.error} />
      <div className="stack">
        <Button variant="primary" className="btn-block" busy={action.busyWith === 'allow'} disabled={action.busy} onClick={() => void allow()}>
          {t('consent.allow')}
        </Button>
        <Button className="btn-block" busy={action.busyWith === 'deny'} disabled={action.busy} onClick={() => void deny()}>
          {t('consent.deny')}
        </Button>
      </div>
      <p className="hint">{t('consent.takeBack')}</p>
    </PublicShell>
  );
}
