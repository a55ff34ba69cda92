import { useQuery } from '@tanstack/react-query';
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
      title="Dashboard"
      wide
      actions={
        <Button onClick={() => void stats.refetch()} busy={stats.isFetching}>
          Refresh
        </Button>
      }
    >
      {stats.isLoading ? <Loading /> : null}
      {stats.error ? <ErrorMessage error={stats.error} title="The sector’s figures could not be read." /> : null}
      {data ? (
        <>
          <dl className="stat-cards" aria-label="This sector now">
            <Figure label="Users" value={data.users} />
            <Figure label="Active sessions" value={data.activeSessions} note="Signed in, not ended or expired" />
            <Figure label={`Sign-ins, last ${DAYS} days`} value={signIns} note={`${failures.toLocaleString()} failed attempts · ${signUps.toLocaleString()} sign-ups`} />
          </dl>
          <Section title="Sign-in activity">
            <SignInChart days={data.days} />
            <p className="muted">
              Days are UTC. A sign-in counts once it issued a token; each refused password, code or passkey step counts as a failed attempt.{' '}
              <Link to={`${auditPath}?type=sign_in`}>Review the sign-in events</Link>
            </p>
          </Section>
        </>
      ) : null}
    </Page>
  );
}
