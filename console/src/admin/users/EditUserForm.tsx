import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Loading, Section, TextInput, useToast } from '../../ui';
import { useStepUp } from '../../account/StepUp';
import { usersApi } from '../adminApi';
import type { UserProfile } from '../types';
import { formatTime } from '../util';
import { AccountStatus } from './AccountStatus';
import { UserRoles } from './UserRoles';
import { ADDRESS_FIELDS, PROFILE_FIELDS, type AddressKey, type ProfileTextKey } from '../../api/profileFields';
import { refreshUserLists } from './userLists';

interface Values {
  profile: Record<ProfileTextKey, string> & { emailVerified: boolean; phoneNumberVerified: boolean; address: Record<AddressKey, string> };
  isAdmin: boolean;
}

function toValues(u: UserProfile, isAdmin: boolean): Values {
  const profile = {} as Values['profile'];
  for (const f of PROFILE_FIELDS) profile[f.key] = u[f.key] ?? '';
  profile.emailVerified = u.emailVerified;
  profile.phoneNumberVerified = u.phoneNumberVerified;
  profile.address = { ...u.address };
  return { profile, isAdmin };
}

/** The profile fields the form shows until all of them are asked for. */
const FIRST_FIELDS: ProfileTextKey[] = ['name', 'givenName', 'familyName', 'email', 'phoneNumber', 'locale'];
/** The violations the form shows at its inputs: with the first profile fields, and with all of them. */
const FIRST_SHOWN = ['isAdmin', 'profile.emailVerified', 'profile.phoneNumberVerified', ...FIRST_FIELDS.map((k) => `profile.${k}`)];
const ALL_SHOWN = [...FIRST_SHOWN, ...PROFILE_FIELDS.filter((f) => !FIRST_FIELDS.includes(f.key)).map((f) => `profile.${f.key}`), ...ADDRESS_FIELDS.map((f) => `profile.address.${f.key}`)];

type Dirty = { profile?: Record<string, unknown> & { address?: Record<string, unknown> }; isAdmin?: boolean };

/** The PUT body: changed profile fields only (PUT merges); the admin flag only when it changed, with setAdminExplicitly. */
function toBody(v: Values, dirty: Dirty) {
  const profile: Record<string, unknown> = {};
  for (const key of Object.keys(dirty.profile ?? {})) {
    if (key === 'address') continue;
    profile[key] = v.profile[key as keyof Values['profile']];
  }
  if (dirty.profile?.address && Object.values(dirty.profile.address).some(Boolean)) profile.address = v.profile.address;
  return {
    ...(Object.keys(profile).length ? { profile } : {}),
    ...(dirty.isAdmin ? { isAdmin: v.isAdmin, setAdminExplicitly: true } : {}),
  };
}

interface EditorProps {
  user: UserProfile;
  isAdmin: boolean;
  onDone: () => void;
  /** The id of the heading that names the form. */
  labelledBy: string;
  /** Asked once the form is shown: true moves focus to its first field (only when the editor opens, not when it is re-read). */
  takeFocus?: () => boolean;
}

/** The profile form (PUT /users/{sub}): the users list opens it inline, the user's page in its Profile section. */
export function UserProfileEditor({ user, isAdmin, onDone, labelledBy, takeFocus }: EditorProps) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const [showMore, setShowMore] = useState(false);
  const withStepUp = useStepUp();
  const { register, handleSubmit, setError, formState: { errors, dirtyFields, isDirty } } = useForm<Values>({ defaultValues: toValues(user, isAdmin) });
  const save = useMutation({
    mutationFn: (v: Values) => withStepUp(() => usersApi.update(user.sub, toBody(v, dirtyFields as Dirty))),
    onSuccess: () => {
      toast(t('edit.saved'));
      refreshUserLists(queryClient);
      void queryClient.invalidateQueries({ queryKey: ['user', user.sub] });
      onDone();
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        if (f.field.startsWith('profile.')) setError(f.field as 'profile.name', { type: 'server', message: f.description });
        if (f.field === 'isAdmin') setError('isAdmin', { type: 'server', message: f.description });
      }
      // A violation of a field the short form hides opens all of them, so it is seen at its input.
      if (error.fieldViolations.some((f) => ALL_SHOWN.includes(f.field) && !FIRST_SHOWN.includes(f.field))) setShowMore(true);
    },
  });
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (takeFocus?.()) formRef.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [takeFocus]);
  const err = (key: string) => (errors.profile as Record<string, { message?: string }> | undefined)?.[key]?.message;
  const addressErr = (key: string) => (errors.profile?.address as Record<string, { message?: string }> | undefined)?.[key]?.message;
  const visible = showMore ? PROFILE_FIELDS : PROFILE_FIELDS.filter((f) => FIRST_FIELDS.includes(f.key));
  return (
    <form ref={formRef} aria-labelledby={labelledBy} noValidate onSubmit={handleSubmit((v) => (isDirty ? save.mutate(v) : onDone()))}>
      <ErrorMessage error={save.error} title={t('edit.failed')} fields={showMore ? ALL_SHOWN : FIRST_SHOWN} />
      <p className="muted">
        {t('edit.times', { created: formatTime(user.createdAt), updated: formatTime(user.updatedAt) })} · <code>{user.sub}</code>
      </p>
      <div className="form-grid">
        {visible.map((f) => (
          <Field key={f.key} label={t(`account:profile.fields.${f.key}`)} hint={f.hint ? t(`account:profile.hints.${f.key}`) : undefined} error={err(f.key)}>
            {(p) => <TextInput {...p} type={f.type ?? 'text'} autoComplete="off" {...register(`profile.${f.key}`)} />}
          </Field>
        ))}
      </div>
      {showMore ? (
        <fieldset>
          <legend>{t('account:profile.address')}</legend>
          <div className="form-grid">
            {ADDRESS_FIELDS.map((f) => (
              <Field key={f.key} label={t(`account:profile.fields.${f.key}`)} error={addressErr(f.key)}>
                {(p) => <TextInput {...p} autoComplete="off" {...register(`profile.address.${f.key}`)} />}
              </Field>
            ))}
          </div>
        </fieldset>
      ) : null}
      <Button variant="link" onClick={() => setShowMore((s) => !s)} aria-expanded={showMore}>
        {showMore ? t('edit.fewer') : t('edit.more')}
      </Button>
      <Checkbox label={t('edit.emailVerified')} error={err('emailVerified')} {...register('profile.emailVerified')} />
      <Checkbox label={t('edit.phoneVerified')} error={err('phoneNumberVerified')} {...register('profile.phoneNumberVerified')} />
      <Checkbox label={t('create.admin')} hint={t('edit.adminHint')} error={errors.isAdmin?.message} {...register('isAdmin')} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {t('edit.save')}
        </Button>
        <Button onClick={onDone}>{t('edit.cancel')}</Button>
      </div>
    </form>
  );
}

/** Edits a user's profile and admin flag, disables or enables them (PUT /users/{sub}), and sets their roles (PUT /users/{sub}/roles). */
export function EditUserForm({ sub, email, isAdmin, onDone }: { sub: string; email: string; isAdmin: boolean; onDone: () => void }) {
  const { t } = useTranslation('users');
  const user = useQuery({ queryKey: ['user', sub], queryFn: () => usersApi.read(sub) });
  // Opening the editor moves focus to its first field, once: a re-read after a status change leaves focus where it is.
  const focusPending = useRef(true);
  const [takeFocus] = useState(() => () => {
    const pending = focusPending.current;
    focusPending.current = false;
    return pending;
  });
  return (
    <Section title={t('list.editLabel', { email })} id="edit-user">
      {user.isPending ? <Loading label={t('edit.loading')} /> : null}
      <ErrorMessage error={user.error} title={t('edit.loadFailed')} />
      {user.data ? <UserProfileEditor key={`${sub}:${user.dataUpdatedAt}`} user={user.data} isAdmin={isAdmin} onDone={onDone} labelledBy="edit-user-heading" takeFocus={takeFocus} /> : null}
      {/* Outside the editor's form: its confirmation dialog holds a form of its own. */}
      {user.data ? <AccountStatus user={user.data} /> : null}
      {/* Saved on its own (PUT /users/{sub}/roles), like the account status. */}
      {user.data ? <UserRoles user={user.data} /> : null}
    </Section>
  );
}
