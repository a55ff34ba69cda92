import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, seg } from '../../api/client';
import type { Schemas } from '../../api/types';
import { Button, ErrorMessage, Loading, Page, Section } from '../../ui';
import './dashboard.css';
import { SignInChart } from './SignInChart';

/**
 * A sector at a glance (GET /api/v1/sectors/{sectorID}/stats): its users and live
 * sessions now, and the sign-ins and failed attempts of the last 30 UTC days,
 * read from the audit trail.
 */

type SectorStats = Schemas['SectorStatsResponse'];

const DAYS = 30;

function Figure({ label, value, note }: { label: string; value: number; note?: string }) {
  return (
    <div className="card stat-card">
      <dt>{label}</dt>
      <dd className="stat-card__value">{value.toLocaleString()}</dd>
      {note ? <dd className="stat-card__note">{note}</dd> : null}
    </div>
  );
}

export default function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const { sectorID = '' } = useParams();
  const stats = useQuery({
    queryKey: ['sector-stats', sectorID, DAYS],
    queryFn: () => api.get<SectorStats>(`/api/v1/sectors/${seg(sectorID)}/stats`, { days: DAYS }),
  });
  const data = stats.data;
  const signIns = data?.days.reduce((n, d) => n + d.signIns, 0) ?? 0;
  const failures = data?.days.reduce((n, d) => n + d.signInFailures, 0) ?? 0;
  const signUps = data?.days.reduce((n, d) => n + d.signUps, 0) ?? 0;
  const auditPath = `/console/sectors/${seg(sectorID)}/audit`;
  return (
    <Page
      title={t('title')}
      wide
      actions={
        <Button onClick={() => void stats.refetch()} busy={stats.isFetching}>
          {t('refresh')}
        </Button>
      }
    >
      {stats.isLoading ? <Loading /> : null}
      {stats.error ? <ErrorMessage error={stats.error} title={t('readFailed')} /> : null}
      {data ? (
        <>
          <dl className="stat-cards" aria-label={t('now')}>
            <Figure label={t('users')} value={data.users} />
            <Figure label={t('sessions')} value={data.activeSessions} note={t('sessionsNote')} />
            <Figure label={t('signIns', { days: DAYS })} value={signIns} note={t('signInsNote', { failures: failures.toLocaleString(), signUps: signUps.toLocaleString() })} />
          </dl>
          <Section title={t('activity')}>
            <SignInChart days={data.days} />
            <p className="muted">
              {t('explain')}{' '}
              <Link to={`${auditPath}?type=sign_in`}>{t('review')}</Link>
            </p>
          </Section>
        </>
      ) : null}
    </Page>
  );
}
