import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui';

/** One UTC day of the chart. */
interface ChartDay {
  day: string;
  signIns: number;
  signInFailures: number;
  signUps: number;
}

const WIDTH = 720;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 8, bottom: 34, left: 44 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** A YYYY-MM-DD UTC day, short ("Nov 3"), in the viewer's language. */
function shortDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? day : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The top of the value axis: a round number at or above the largest value, with ticks at its quarters. */
function axisTop(max: number): number {
  if (max <= 4) return 4;
  const step = 10 ** Math.floor(Math.log10(max / 4));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step * 4 >= max && Number.isInteger(m * step)) return m * step * 4;
  return Math.ceil(max / 4) * 4;
}

/**
 * Sign-ins and failed sign-in attempts per day as grouped bars, drawn as inline
 * SVG in the theme's colours (so dark mode follows). The SVG is one image with a
 * summary for screen readers; the same figures are in a table, visually hidden
 * unless "Show as table" is pressed.
 */
export function SignInChart({ days }: { days: ChartDay[] }) {
  const { t } = useTranslation('dashboard');
  const id = useId();
  const [asTable, setAsTable] = useState(false);
  const top = axisTop(Math.max(0, ...days.map((d) => Math.max(d.signIns, d.signInFailures))));
  const slot = PLOT_W / Math.max(days.length, 1);
  const bar = Math.max(1, Math.min(14, (slot - 4) / 2));
  const y = (v: number) => MARGIN.top + PLOT_H - (v / top) * PLOT_H;
  const ticks = [0, 1, 2, 3, 4].map((i) => (top / 4) * i);
  // About six day labels, evenly spaced back from today's (the last, right-aligned so it is never cut).
  const labelEvery = Math.max(1, Math.ceil(days.length / 6));
  const totalIns = days.reduce((n, d) => n + d.signIns, 0);
  const totalFailures = days.reduce((n, d) => n + d.signInFailures, 0);
  const busiest = days.reduce<ChartDay | undefined>((b, d) => (!b || d.signIns > b.signIns ? d : b), undefined);
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  const summary =
    t('chart.summary', { ins: totalIns, failures: totalFailures, from: shortDay(first), to: shortDay(last) }) +
    (busiest && busiest.signIns > 0 ? t('chart.busiest', { n: busiest.signIns, day: shortDay(busiest.day) }) : '.');
  return (
    <figure className="chart">
      <figcaption className="chart__head">
        <span id={`${id}-title`} className="chart__title">
          {t('chart.title')}
        </span>
        <span className="chart__legend" aria-hidden="true">
          <span className="chart__key chart__key--ins" /> {t('chart.signIns')} <span className="chart__key chart__key--failures" /> {t('chart.failures')}
        </span>
        <Button variant="link" aria-expanded={asTable} aria-controls={`${id}-table`} onClick={() => setAsTable((v) => !v)}>
          {asTable ? t('chart.hideTable') : t('chart.showTable')}
        </Button>
      </figcaption>
      <svg className="chart__svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} preserveAspectRatio="xMidYMid meet">
        <desc id={`${id}-desc`}>{summary}</desc>
        {ticks.map((v) => (
          <g key={v}>
            <line className="chart__grid" x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(v)} y2={y(v)} />
            <text className="chart__axis" x={MARGIN.left - 6} y={y(v)} textAnchor="end" dominantBaseline="middle">
              {v}
            </text>
          </g>
        ))}
        {days.map((d, i) => {
          const x = MARGIN.left + i * slot + (slot - 2 * bar) / 2;
          return (
            <g key={d.day}>
              <rect className="chart__bar chart__bar--ins" x={x} y={y(d.signIns)} width={bar} height={y(0) - y(d.signIns)}>
                <title>{t('chart.barIns', { day: shortDay(d.day), n: d.signIns })}</title>
              </rect>
              <rect className="chart__bar chart__bar--failures" x={x + bar} y={y(d.signInFailures)} width={bar} height={y(0) - y(d.signInFailures)}>
                <title>{t('chart.barFailures', { day: shortDay(d.day), n: d.signInFailures })}</title>
              </rect>
              {(days.length - 1 - i) % labelEvery === 0 ? (
                <text
                  className="chart__axis"
                  x={i === days.length - 1 ? MARGIN.left + (i + 1) * slot : MARGIN.left + i * slot + slot / 2}
                  y={HEIGHT - MARGIN.bottom + 20}
                  textAnchor={i === days.length - 1 ? 'end' : 'middle'}
                >
                  {shortDay(d.day)}
                </text>
              ) : null}
            </g>
          );
        })}
        <line className="chart__baseline" x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(0)} y2={y(0)} />
      </svg>
      <div id={`${id}-table`} className={asTable ? 'table-scroll chart__table' : 'visually-hidden'}>
        <table className="table">
          <caption>{t('chart.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('chart.day')}</th>
              <th scope="col">{t('chart.signIns')}</th>
              <th scope="col">{t('chart.failures')}</th>
              <th scope="col">{t('chart.signUps')}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">
                  <time dateTime={d.day}>{d.day}</time>
                </th>
                <td>{d.signIns}</td>
                <td>{d.signInFailures}</td>
                <td>{d.signUps}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
