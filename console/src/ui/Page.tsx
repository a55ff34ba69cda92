import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A screen: the main landmark with the page's one h1 (also the document title), optional actions beside it.
 * `focusTitle`: a step that replaces the screen in place (no navigation) moves focus to its h1, so a
 * screen reader announces it and the keyboard starts from there.
 */
export function Page({ title, actions, children, wide = false, focusTitle = false }: { title: string; actions?: ReactNode; children: ReactNode; wide?: boolean; focusTitle?: boolean }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Identity`;
  }, [title]);
  useEffect(() => {
    if (focusTitle) headingRef.current?.focus();
  }, [focusTitle, title]);
  return (
    <main id="main" className={wide ? 'page page-wide' : 'page'} tabIndex={-1}>
      <div className="page-head">
        <h1 ref={headingRef} tabIndex={focusTitle ? -1 : undefined}>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {children}
    </main>
  );
}

/** A titled part of a page (h2), a region named by its heading. */
export function Section({ title, children, actions, id }: { title: string; children: ReactNode; actions?: ReactNode; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section className="section" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>{title}</h2>
        {actions ? <div className="section-actions">{actions}</div> : null}
      </div>
      {children}
    </section>
  );
}
