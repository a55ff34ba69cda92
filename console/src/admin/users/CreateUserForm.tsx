import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { Button, Checkbox, ErrorMessage, Field, Section, TextInput, useToast } from '../../ui';
import { usersApi } from '../adminApi';
import { refreshUserLists } from './userLists';

interface Values {
  email: string;
  username: string;
  name: string;
  password: string;
  isAdmin: boolean;
}

type Mode = 'create' | 'invite';

/** The service's field of a violation -> the input that shows it. */
const FIELD_OF: Record<string, keyof Values> = { email: 'email', username: 'username', 'profile.name': 'name', password: 'password', isAdmin: 'isAdmin', 'profile.email': 'email' };
const SHOWN = Object.keys(FIELD_OF);

/**
 * Creates a user with an initial password, or invites one: without a password the
 * service creates the user as invited and mails the invitation (docs/api.md, Invitations).
 */
export function CreateUserForm({ sectorID, onDone }: { sectorID: string; onDone: () => void }) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const mode = useRef<Mode>('create');
  const { register, handleSubmit, setError, reset, setFocus, formState: { errors } } = useForm<Values>({
    defaultValues: { email: '', username: '', name: '', password: '', isAdmin: false },
  });
  // Opening the form moves focus to its first field.
  useEffect(() => setFocus('email'), [setFocus]);
  const create = useMutation({
    mutationFn: ({ v, m }: { v: Values; m: Mode }) =>
      usersApi.create(sectorID, {
        email: v.email.trim(),
        ...(v.username.trim() ? { username: v.username.trim() } : {}),
        ...(m === 'create' ? { password: v.password } : {}),
        ...(v.name.trim() ? { profile: { name: v.name.trim() } } : {}),
        ...(v.isAdmin ? { isAdmin: true } : {}),
      }),
    onSuccess: (user, { m }) => {
      toast(m === 'invite' ? t('create.invited', { email: user.email }) : t('create.created', { email: user.email }));
      reset();
      refreshUserLists(queryClient, sectorID);
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      for (const f of error.fieldViolations) {
        const key = FIELD_OF[f.field];
        if (key) setError(key, { type: 'server', message: f.description });
      }
    },
  });
  const submit = (m: Mode) =>
    handleSubmit((v) => {
      if (m === 'create' && v.password === '') {
        setError('password', { type: 'required', message: t('create.passwordNeeded') });
        return;
      }
      create.mutate({ v, m });
    });

  return (
    <Section title={t('list.new')} id="new-user">
      <form
        aria-labelledby="new-user-heading"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit(mode.current)(e);
        }}
      >
        <ErrorMessage error={create.error} title={t('create.failed')} fields={SHOWN} />
        <div className="form-grid">
          <Field label={t('list.email')} required error={errors.email?.message}>
            {(p) => <TextInput {...p} type="email" required autoComplete="off" {...register('email', { required: t('create.emailNeeded') })} />}
          </Field>
          <Field label={t('create.username')} error={errors.username?.message} hint={t('create.usernameHint')}>
            {(p) => <TextInput {...p} autoComplete="off" spellCheck={false} {...register('username')} />}
          </Field>
          <Field label={t('create.fullName')} error={errors.name?.message}>
            {(p) => <TextInput {...p} autoComplete="off" {...register('name')} />}
          </Field>
          <Field label={t('create.password')} error={errors.password?.message} hint={t('create.passwordHint')}>
            {(p) => <TextInput {...p} type="password" autoComplete="new-password" {...register('password')} />}
          </Field>
        </div>
        <Checkbox label={t('create.admin')} error={errors.isAdmin?.message} {...register('isAdmin')} />
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={create.isPending && create.variables?.m === 'create'} onClick={() => (mode.current = 'create')}>
            {t('create.create')}
          </Button>
          <Button type="submit" busy={create.isPending && create.variables?.m === 'invite'} onClick={() => (mode.current = 'invite')}>
            {t('create.invite')}
          </Button>
          <Button onClick={onDone}>{t('create.close')}</Button>
        </div>
      </form>
    </Section>
  );
}
