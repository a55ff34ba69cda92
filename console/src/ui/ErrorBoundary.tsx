import { Component, useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './Button';
import { retryFailedScreens } from './lazyScreen';

interface ScreenBoundaryProps {
  /** When it changes (the address's path), a failed screen is tried again. */
  resetKey?: string;
  children: ReactNode;
}

interface ScreenBoundaryState {
  failed: boolean;
}

/**
 * Keeps a screen's failure inside the screen: a screen whose code could not be
 * loaded (the service unreachable or unavailable, or a newer version installed)
 * or that failed while rendering is replaced by a panel that says so and offers
 * to try again, while the header and navigation around it stay usable. Navigating
 * elsewhere (`resetKey`) tries again too.
 */
export class ScreenBoundary extends Component<ScreenBoundaryProps, ScreenBoundaryState> {
  state: ScreenBoundaryState = { failed: false };

  static getDerivedStateFromError(): ScreenBoundaryState {
    return { failed: true };
  }

  componentDidUpdate(previous: ScreenBoundaryProps): void {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.retry();
  }

  private readonly retry = (): void => {
    retryFailedScreens();
    this.setState({ failed: false });
  };

  render(): ReactNode {
    return this.state.failed ? <ScreenFailed onRetry={this.retry} /> : this.props.children;
  }
}

/** The panel in place of a failed screen: its heading takes focus so the keyboard and screen readers start there. */
function ScreenFailed({ onRetry }: { onRetry: () => void }) {
  const { t } = useTranslation('common');
  const headingRef = useRef<HTMLHeadingElement>(null);
  const title = t('screenFailed.title');
  useEffect(() => {
    document.title = `${title} · Identity`;
    headingRef.current?.focus();
  }, [title]);
  return (
    <main id="main" className="page" tabIndex={-1}>
      <div className="screen-failed" role="alert" aria-labelledby="screen-failed-heading">
        <h1 id="screen-failed-heading" ref={headingRef} tabIndex={-1}>
          {title}
        </h1>
        <p>{t('screenFailed.body')}</p>
        <div className="actions">
          <Button variant="primary" onClick={onRetry}>
            {t('tryAgain')}
          </Button>
        </div>
      </div>
    </main>
  );
}
