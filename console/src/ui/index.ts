/** The console's UI kit: accessible building blocks shared by the admin console and the account page. */
import './theme.css';

export { Page, Section } from './Page';
export { Button, type ButtonProps, type ButtonVariant } from './Button';
export { Field, TextInput, TextArea, Select, Checkbox, type ControlProps, type FieldProps } from './Field';
export { DataTable, type DataTableProps, type ColumnDef, type SortingState } from './DataTable';
export { ConfirmDialog, type ConfirmDialogProps } from './ConfirmDialog';
export { Loading, EmptyState, ErrorMessage, errorText } from './Feedback';
export { CopyButton } from './CopyButton';
export { ToastProvider, useToast } from './Toast';
export { useConfirmedRemoval } from './useConfirmedRemoval';
export { useModalDialog } from './useModalDialog';
export { useAsyncAction, type AsyncAction } from './useAsyncAction';
export { ScreenBoundary } from './ErrorBoundary';
export { lazyScreen } from './lazyScreen';
export { installChunkReload } from './chunkReload';
