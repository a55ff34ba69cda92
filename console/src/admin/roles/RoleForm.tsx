import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, ErrorMessage, Field, Section, TextArea, TextInput, useToast } from '../../ui';
import { rolesApi } from '../adminApi';
import type { SectorRole } from '../types';
import { formatTime } from '../util';
import { checkPermissions, checkRoleName, MAX_DESCRIPTION, MAX_PERMISSIONS, permissionLines } from './roleRules';

/**
 * A role's name, description and permissions, as PUT /sectors/{id}/roles/{name}
 * takes them. The PUT creates or replaces, so the new-role form refuses a name the
 * sector already has (editing it is the way to change it); once created, the name
 * is fixed. Permissions are edited one per line. The service's field violations
 * show beside their fields.
 */

interface Values {
  name: string;
  description: string;
  permissions: string;
}

const FIELDS: Array<keyof Values> = ['name', 'description', 'permissions'];
/** The fields a saved role's form shows (its name is fixed, so not an input). */
const EDITED_FIELDS: Array<keyof Values> = ['description', 'permissions'];

function fieldOf(field: string): keyof Values | undefined {
  return FIELDS.find((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`));
}

interface EditorProps {
  sectorID: string;
  /** The role to edit; absent: a new one. */
  role?: SectorRole;
  /** The names the sector already has (a new role may not take one). */
  taken: string[];
  onDone: () => void;
}

function Editor({ sectorID, role, taken, onDone }: EditorProps) {
  const { t } = useTranslation('roles');
  const toast = useToast();
  const queryClient = useQueryClient();
  const headingId = role ? 'edit-role-heading' : 'new-role-heading';
  const { register, handleSubmit, setError, clearErrors, setFocus, formState: { errors } } = useForm<Values>({
    defaultValues: { name: role?.name ?? '', description: role?.description ?? '', permissions: role?.permissions.join('\n') ?? '' },
  });

  useEffect(() => setFocus(role ? 'description' : 'name'), [setFocus, role]);

  const save = useMutation({
    mutationFn: (v: Values) => rolesApi.put(sectorID, role?.name ?? v.name.trim(), { description: v.description.trim(), permissions: permissionLines(v.permissions) }),
    onSuccess: (saved) => {
      toast(role ? t('form.saved', { name: saved.name }) : t('form.created', { name: saved.name }));
      void queryClient.invalidateQueries({ queryKey: ['roles', sectorID] });
      // What holders hold follows the role's permissions.
      void queryClient.invalidateQueries({ queryKey: ['user-roles'] });
      onDone();
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        const key = fieldOf(f.field);
        if (key) setError(key, { type: 'server', message: f.description });
      }
    },
  });

  return (
    <form aria-labelledby={headingId} noValidate onSubmit={handleSubmit((v) => { clearErrors(); save.mutate(v); })}>
      <ErrorMessage error={save.error} title={role ? t('form.notSaved') : t('form.notCreated')} fields={role ? EDITED_FIELDS : FIELDS} />
      {role ? (
        <p className="muted">
          {t('form.name')} <code>{role.name}</code> {t('form.fixed', { created: formatTime(role.createdAt), updated: formatTime(role.updatedAt) })}
        </p>
      ) : (
        <Field label={t('form.roleName')} required error={errors.name?.message} hint={t('form.roleNameHint')}>
          {(p) => (
            <TextInput
              {...p}
              required
              autoComplete="off"
              spellCheck={false}
              {...register('name', {
                validate: (v) => {
                  const name = v.trim();
                  if (taken.includes(name)) return t('form.taken');
                  return checkRoleName(name);
                },
              })}
            />
          )}
        </Field>
      )}
      <Field label={t('form.description')} error={errors.description?.message} hint={t('form.descriptionHint', { max: MAX_DESCRIPTION })}>
        {(p) => <TextArea {...p} rows={2} autoComplete="off" {...register('description', { maxLength: { value: MAX_DESCRIPTION, message: t('form.descriptionTooLong', { max: MAX_DESCRIPTION }) } })} />}
      </Field>
      <Field label={t('form.permissions')} error={errors.permissions?.message} hint={t('form.permissionsHint', { max: MAX_PERMISSIONS })}>
        {(p) => <TextArea {...p} rows={5} spellCheck={false} autoComplete="off" {...register('permissions', { validate: checkPermissions })} />}
      </Field>
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {role ? t('form.save') : t('form.create')}
        </Button>
        <Button onClick={onDone}>{t('form.cancel')}</Button>
      </div>
    </form>
  );
}

/** Creates a role of the sector. */
export function CreateRoleForm({ sectorID, taken, onDone }: { sectorID: string; taken: string[]; onDone: () => void }) {
  const { t } = useTranslation('roles');
  return (
    <Section title={t('new')} id="new-role">
      <Editor sectorID={sectorID} taken={taken} onDone={onDone} />
    </Section>
  );
}

/** Replaces a role's description and permissions (its name stays). */
export function EditRoleForm({ sectorID, role, onDone }: { sectorID: string; role: SectorRole; onDone: () => void }) {
  const { t } = useTranslation('roles');
  return (
    <Section title={t('editLabel', { name: role.name })} id="edit-role">
      <Editor sectorID={sectorID} role={role} taken={[]} onDone={onDone} />
    </Section>
  );
}
