import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useId, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './Button';
import { EmptyState, ErrorMessage, Loading } from './Feedback';
import { Field, Select } from './Field';

export type { ColumnDef, SortingState } from '@tanstack/react-table';

export interface DataTableProps<T> {
  /** The table's caption (its accessible name); visually hidden with `hideCaption`. */
  caption: string;
  hideCaption?: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns: Array<ColumnDef<T, any>>;
  /** The current page's rows; undefined while the first page loads. */
  data: T[] | undefined;
  loading?: boolean;
  error?: unknown;
  /** What an empty result says (e.g. "No users match"). */
  emptyTitle?: string;
  emptyBody?: ReactNode;
  getRowId?: (row: T, index: number) => string;
  /** Server-side paging: 1-based page number and page count from the API's answer. */
  page?: number;
  pageCount?: number;
  totalCount?: number;
  onPageChange?: (page: number) => void;
  /** Server-side sorting: columns with `enableSorting: true` get a sort button in their header. */
  sorting?: SortingState;
  onSortingChange?: (sorting: SortingState) => void;
}

/** Below this width a table's rows are cards: each a definition list of column header → cell. */
const NARROW = '(max-width: 600px)';

function subscribeNarrow(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the screen is phone-narrow (re-rendered when that changes): tables of their own (the audit log) turn to cards too. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribeNarrow, () => window.matchMedia(NARROW).matches, () => false);
}

/**
 * A table over TanStack Table with paging and sorting done by the server
 * (`manualPagination`/`manualSorting`): the table never holds more than one page.
 * Headers of sortable columns are buttons, with `aria-sort` on the header cell.
 * On a phone-narrow screen the rows are a list of cards instead (each cell under its
 * column's header, in a definition list) with a "Sort by" select: nothing is cut off
 * and every row action stays reachable without scrolling sideways.
 */
export function DataTable<T>({ caption, hideCaption, columns, data, loading, error, emptyTitle, emptyBody, getRowId, page = 1, pageCount, totalCount, onPageChange, sorting = [], onSortingChange }: DataTableProps<T>) {
  // TanStack Table returns functions that the React Compiler must not memoize; this component is not compiled.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable<T>({
    data: data ?? [],
    columns,
    getRowId,
    getCoreRowModel: getCoreRowModel(),
    manualPagination: true,
    manualSorting: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    pageCount: pageCount ?? -1,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      onSortingChange?.(next);
    },
  });

  const { t } = useTranslation('common');
  const narrow = useNarrow();
  const captionId = useId();

  if (error && !data) return <ErrorMessage error={error} />;

  const sortable = onSortingChange ? table.getAllLeafColumns().filter((c) => c.columnDef.enableSorting === true) : [];
  const headerOf = (columnId: string) => table.getFlatHeaders().find((h) => h.column.id === columnId);
  const current = sorting[0] ? `${sorting[0].id}:${sorting[0].desc ? 'desc' : 'asc'}` : '';
  const body = narrow ? (
    <>
      <p id={captionId} className={hideCaption ? 'visually-hidden' : 'table-cards__caption'}>{caption}</p>
      {sortable.length > 0 && onSortingChange ? (
        <Field label={t('table.sortBy')}>
          {(p) => (
            <Select
              {...p}
              value={current}
              onChange={(e) => {
                const [id, dir] = e.target.value.split(':');
                onSortingChange([{ id, desc: dir === 'desc' }]);
              }}
              options={sortable.flatMap((c) => {
                const name = typeof c.columnDef.header === 'string' ? c.columnDef.header : c.id;
                return [
                  { value: `${c.id}:asc`, label: t('table.ascending', { name }) },
                  { value: `${c.id}:desc`, label: t('table.descending', { name }) },
                ];
              })}
            />
          )}
        </Field>
      ) : null}
      <ul className="table-cards" aria-labelledby={captionId} aria-busy={loading || undefined}>
        {table.getRowModel().rows.map((row) => (
          <li key={row.id} className="table-card">
            <dl>
              {row.getVisibleCells().map((cell) => {
                const header = headerOf(cell.column.id);
                return (
                  <div key={cell.id} className="table-card__item">
                    <dt>{header && !header.isPlaceholder ? flexRender(cell.column.columnDef.header, header.getContext()) : null}</dt>
                    <dd>{flexRender(cell.column.columnDef.cell, cell.getContext())}</dd>
                  </div>
                );
              })}
            </dl>
          </li>
        ))}
      </ul>
    </>
  ) : (
      <div className="table-scroll">
        <table className="table" aria-busy={loading || undefined}>
          <caption className={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const canSort = header.column.getCanSort() && !!onSortingChange && header.column.columnDef.enableSorting === true;
                  const sorted = header.column.getIsSorted();
                  const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
                  return (
                    <th key={header.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                      {canSort ? (
                        <button type="button" className="sort-button" onClick={header.column.getToggleSortingHandler()}>
                          {label}
                          <span aria-hidden="true" className="sort-mark">{sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : ' ↕'}</span>
                        </button>
                      ) : (
                        label
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} data-label={typeof cell.column.columnDef.header === 'string' ? cell.column.columnDef.header : undefined}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
  );

  return (
    <div className="table-block">
      {body}
      {loading && !data ? <Loading /> : null}
      {data && data.length === 0 && !loading ? <EmptyState title={emptyTitle ?? t('table.empty')}>{emptyBody}</EmptyState> : null}
      {error && data ? <ErrorMessage error={error} /> : null}
      {onPageChange && (pageCount ?? 0) > 0 ? (
        <nav className="pager" aria-label={t('table.pages', { caption })}>
          <Button onClick={() => onPageChange(page - 1)} disabled={page <= 1 || loading}>{t('table.previous')}</Button>
          <span className="pager-status" aria-live="polite">
            {t('table.pageOf', { page, pageCount })}
            {totalCount !== undefined ? t('table.inAll', { count: totalCount }) : ''}
          </span>
          <Button onClick={() => onPageChange(page + 1)} disabled={page >= (pageCount ?? 1) || loading}>{t('table.next')}</Button>
        </nav>
      ) : null}
    </div>
  );
}
