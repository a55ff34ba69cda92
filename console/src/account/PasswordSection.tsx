import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../api/client';
import { Button, ErrorMessage, Field, Section, TextInput, useToast } from '../ui';
import { accountApi } from './accountApi';

interface PasswordForm {
  currentPassword: string;
  newPassword: string;
  repeat: string;
}

/** Password change: the current password, the new one twice. Other sessions end; this one stays. */
export function PasswordSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const { register, handleSubmit, reset, formState: { errors } } = useForm<PasswordForm>({ defaultValues: { currentPassword: '', newPassword: '', repeat: '' } });
  const change = useMutation({
    mutationFn: (v: PasswordForm) => accountApi.changePassword(sub, v.currentPassword, v.newPassword),
    onSuccess: () => {
      reset();
      toast(t('password.changed'));
    },
  });
  const api = change.error instanceof ApiError ? change.error : null;
  const currentError = errors.currentPassword?.message ?? (api?.reason === 'INVALID_CREDENTIALS' ? t('password.wrongCurrent') : api?.violation('currentPassword'));
  const newError = errors.newPassword?.message ?? api?.violation('newPassword');
  // A wrong current password is said at its field only.
  const shown = api?.reason === 'INVALID_CREDENTIALS' ? null : change.error;

  return (
    <Section title={t('parts.password')} id="password">
      <form onSubmit={handleSubmit((v) => change.mutate(v))} noValidate>
        <ErrorMessage error={shown} fields={['currentPassword', 'newPassword']} />
        <Field label={t('password.current')} error={currentError}>
          {(p) => <TextInput {...p} type="password" autoComplete="current-password" {...register('currentPassword', { required: t('password.enterCurrent') })} />}
        </Field>
        <div className="grid-2">
          <Field label={t('password.new')} error={newError}>
            {(p) => <TextInput {...p} type="password" autoComplete="new-password" {...register('newPassword', { required: t('password.chooseNew') })} />}
          </Field>
          <Field label={t('password.repeat')} error={errors.repeat?.message}>
            {(p) => (
              <TextInput
                {...p}
                type="password"
                autoComplete="new-password"
                {...register('repeat', { validate: (value, all) => value === all.newPassword || t('password.differ') })}
              />
            )}
          </Field>
        </div>
        <div className="actions">
          <Button type="submit" variant="primary" busy={change.isPending}>{t('password.submit')}</Button>
        </div>
      </form>
    </Section>
  );
}
