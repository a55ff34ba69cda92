import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../api/client';
import { ADDRESS_FIELDS, PROFILE_FIELDS } from '../api/profileFields';
import { Button, ErrorMessage, Field, Loading, Section, TextInput, useToast } from '../ui';
import { accountApi, type Address, type UserProfile } from './accountApi';
import { useStepUp } from './StepUp';

type ProfileForm = Omit<UserProfile, 'sub' | 'emailVerified' | 'pendingEmail' | 'phoneNumberVerified' | 'updatedAt' | 'createdAt'>;

/** The claims edited below the email and phone number (those two have their own fields and verification). */
const FIELDS = PROFILE_FIELDS.filter((f) => f.key !== 'email' && f.key !== 'phoneNumber');
/** The violations shown at the form's inputs (the service names them under `profile.`). */
const SHOWN = [...PROFILE_FIELDS.map((f) => `profile.${f.key}`), ...ADDRESS_FIELDS.map((f) => `profile.address.${f.key}`)];

function toForm(p: UserProfile): ProfileForm {
  const { sub: _s, emailVerified: _e, pendingEmail: _pe, phoneNumberVerified: _p, updatedAt: _u, createdAt: _c, ...rest } = p;
  return rest;
}

function VerifiedBadge({ verified }: { verified: boolean }) {
  const { t } = useTranslation('account');
  return <span className={verified ? 'badge badge-ok' : 'badge badge-warn'}>{verified ? t('profile.verified') : t('profile.notVerified')}</span>;
}

/**
 * Profile (PUT merge: only changed fields are sent), with the email and phone
 * verification state. Changing the email or phone number needs a recent sign-in
 * (step-up); a new email waits until the link mailed to it is followed.
 */
export function ProfileSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const client = useQueryClient();
  const query = useQuery({ queryKey: ['account', sub, 'profile'], queryFn: () => accountApi.profile(sub) });
  return (
    <Section title={t('parts.profile')} id="profile">
      {query.isPending ? <Loading /> : query.isError ? <ErrorMessage error={query.error} /> : (
        <ProfileForm key={`${query.data.updatedAt}:${query.data.pendingEmail ?? ''}`} sub={sub} profile={query.data} onSaved={(pendingEmail) => {
          toast(pendingEmail ? t('profile.savedPending', { email: pendingEmail }) : t('profile.saved'));
          void client.invalidateQueries({ queryKey: ['account', sub, 'profile'] });
        }} />
      )}
    </Section>
  );
}

function ProfileForm({ sub, profile, onSaved }: { sub: string; profile: UserProfile; onSaved(pendingEmail?: string): void }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const withStepUp = useStepUp();
  const { register, handleSubmit, formState } = useForm<ProfileForm>({ defaultValues: toForm(profile) });
  const save = useMutation({
    mutationFn: (values: ProfileForm) => {
      // Only what changed: the API merges, so untouched fields keep their stored values.
      const dirty = formState.dirtyFields;
      const changed: Record<string, unknown> = {};
      for (const key of Object.keys(dirty) as Array<keyof ProfileForm>) {
        if (key === 'address') {
          const address: Record<string, string> = {};
          for (const part of Object.keys(dirty.address ?? {}) as Array<keyof Address>) address[part] = values.address[part];
          changed.address = address;
        } else changed[key] = values[key];
      }
      return withStepUp(() => accountApi.updateProfile(sub, changed));
    },
    onSuccess: (result) => onSaved(result.pendingEmail),
  });
  const verify = useMutation({
    mutationFn: () => accountApi.sendEmailVerification(sub),
    onSuccess: () => toast(t('profile.verificationSent', { email: profile.email })),
  });
  const violation = (field: string) => (save.error instanceof ApiError ? save.error.violation(`profile.${field}`) : undefined);

  return (
    <form onSubmit={handleSubmit((values) => save.mutate(values))} noValidate>
      <ErrorMessage error={save.error} title={t('profile.notSaved')} fields={SHOWN} />
      <div className="grid-2">
        <Field label={t('profile.email')} error={violation('email')} hint={<>{t('profile.status')} <VerifiedBadge verified={profile.emailVerified} /></>}>
          {(p) => <TextInput {...p} type="email" autoComplete="email" {...register('email')} />}
        </Field>
        <Field label={t('profile.phone')} error={violation('phoneNumber')} hint={<>{t('profile.phoneHint')} <VerifiedBadge verified={profile.phoneNumberVerified} /></>}>
          {(p) => <TextInput {...p} type="tel" autoComplete="tel" {...register('phoneNumber')} />}
        </Field>
      </div>
      {profile.pendingEmail ? (
        <p className="notice" role="status">
          {t('profile.pending', { pending: profile.pendingEmail, email: profile.email || t('profile.unset') })}
        </p>
      ) : null}
      {profile.email && !profile.emailVerified ? (
        <div className="actions">
          <Button onClick={() => verify.mutate()} busy={verify.isPending}>{t('profile.sendVerification')}</Button>
        </div>
      ) : null}
      <ErrorMessage error={verify.error} />
      <div className="grid-2">
        {FIELDS.map((f) => (
          <Field key={f.key} label={t(`profile.fields.${f.key}`)} hint={f.hint ? t(`profile.hints.${f.key}`) : undefined} error={violation(f.key)}>
            {(p) => <TextInput {...p} type={f.type ?? 'text'} autoComplete={f.autoComplete} {...register(f.key)} />}
          </Field>
        ))}
      </div>
      <fieldset>
        <legend>{t('profile.address')}</legend>
        <div className="grid-2">
          {ADDRESS_FIELDS.map((f) => (
            <Field key={f.key} label={t(`profile.fields.${f.key}`)} error={violation(`address.${f.key}`)}>
              {(p) => <TextInput {...p} autoComplete={f.autoComplete} {...register(`address.${f.key}`)} />}
            </Field>
          ))}
        </div>
      </fieldset>
      <div className="actions">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!formState.isDirty}>{t('profile.save')}</Button>
      </div>
    </form>
  );
}
