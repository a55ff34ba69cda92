import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { Button } from './Button';
import { EmptyState, ErrorMessage, Loading } from './Feedback';

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

/**
 * A table over TanStack Table with paging and sorting done by the server
 * (`manualPagination`/`manualSorting`): the table never holds more than one page.
 * Headers of sortable columns are buttons, with `aria-sort` on the header cell.
 */
export function DataTable<T>({ caption, hideCaption, columns, data, loading, error, emptyTitle = 'Nothing here yet', emptyBody, getRowId, page = 1, pageCount, totalCount, onPageChange, sorting = [], onSortingChange }: DataTableProps<T>) {
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

  if (error && !data) return <ErrorMessage error={error} />;

  return (
    <div className="table-block">
      <div className="table-scroll">
        <table className="table" aria-busy={loading || undefined}>
          <caption className={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sortable = header.column.getCanSort() && !!onSortingChange && header.column.columnDef.enableSorting === true;
                  const sorted = header.column.getIsSorted();
                  const label = header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext());
                  return (
                    <th key={header.id} scope="col" aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}>
                      {sortable ? (
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
      {loading && !data ? <Loading /> : null}
      {data && data.length === 0 && !loading ? <EmptyState title={emptyTitle}>{emptyBody}</EmptyState> : null}
      {error && data ? <ErrorMessage error={error} /> : null}
      {onPageChange && (pageCount ?? 0) > 0 ? (
        <nav className="pager" aria-label={`${caption} pages`}>
          <Button onClick={() => onPageChange(page - 1)} disabled={page <= 1 || loading}>Previous page</Button>
          <span className="pager-status" aria-live="polite">
            Page {page} of {pageCount}
            {totalCount !== undefined ? ` · ${totalCount} in all` : ''}
          </span>
          <Button onClick={() => onPageChange(page + 1)} disabled={page >= (pageCount ?? 1) || loading}>Next page</Button>
        </nav>
      ) : null}
    </div>
  );
}
