import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { ApiError } from '../api/client';
import { Button, ErrorMessage, Field, Loading, Section, TextInput, useToast } from '../ui';
import { accountApi, type Address, type UserProfile } from './accountApi';

type ProfileForm = Omit<UserProfile, 'sub' | 'emailVerified' | 'phoneNumberVerified' | 'updatedAt' | 'createdAt'>;

/** The OpenID Connect claims a user may edit, in the order a profile form shows them. */
const FIELDS: Array<{ name: keyof Omit<ProfileForm, 'address' | 'email' | 'phoneNumber'>; label: string; autoComplete?: string; type?: string; hint?: string }> = [
  { name: 'name', label: 'Full name', autoComplete: 'name' },
  { name: 'givenName', label: 'Given name', autoComplete: 'given-name' },
  { name: 'middleName', label: 'Middle name', autoComplete: 'additional-name' },
  { name: 'familyName', label: 'Family name', autoComplete: 'family-name' },
  { name: 'nickname', label: 'Nickname', autoComplete: 'nickname' },
  { name: 'preferredUsername', label: 'Preferred username', autoComplete: 'username' },
  { name: 'profile', label: 'Profile page', type: 'url', autoComplete: 'url', hint: 'An http(s) address.' },
  { name: 'picture', label: 'Picture', type: 'url', autoComplete: 'photo', hint: 'An http(s) address of an image.' },
  { name: 'website', label: 'Website', type: 'url', autoComplete: 'url' },
  { name: 'gender', label: 'Gender', autoComplete: 'sex' },
  { name: 'birthdate', label: 'Birth date', autoComplete: 'bday', hint: 'YYYY-MM-DD, YYYY, or 0000-MM-DD.' },
  { name: 'zoneinfo', label: 'Time zone', hint: 'e.g. Europe/Paris' },
  { name: 'locale', label: 'Language', autoComplete: 'language', hint: 'A language tag such as en-GB.' },
];

const ADDRESS: Array<{ name: keyof Address; label: string; autoComplete: string }> = [
  { name: 'streetAddress', label: 'Street address', autoComplete: 'street-address' },
  { name: 'locality', label: 'City', autoComplete: 'address-level2' },
  { name: 'region', label: 'Region', autoComplete: 'address-level1' },
  { name: 'postalCode', label: 'Postal code', autoComplete: 'postal-code' },
  { name: 'country', label: 'Country', autoComplete: 'country-name' },
  { name: 'formatted', label: 'Full address as printed', autoComplete: 'off' },
];

function toForm(p: UserProfile): ProfileForm {
  const { sub: _s, emailVerified: _e, phoneNumberVerified: _p, updatedAt: _u, createdAt: _c, ...rest } = p;
  return rest;
}

function VerifiedBadge({ verified }: { verified: boolean }) {
  return <span className={verified ? 'badge badge-ok' : 'badge badge-warn'}>{verified ? 'Verified' : 'Not verified'}</span>;
}

/** Profile (PUT merge: only changed fields are sent), with the email and phone verification state. */
export function ProfileSection({ sub }: { sub: string }) {
  const toast = useToast();
  const client = useQueryClient();
  const query = useQuery({ queryKey: ['account', sub, 'profile'], queryFn: () => accountApi.profile(sub) });
  return (
    <Section title="Profile" id="profile">
      {query.isPending ? <Loading /> : query.isError ? <ErrorMessage error={query.error} /> : (
        <ProfileForm key={query.data.updatedAt} sub={sub} profile={query.data} onSaved={() => {
          toast('Profile saved.');
          void client.invalidateQueries({ queryKey: ['account', sub, 'profile'] });
        }} />
      )}
    </Section>
  );
}

function ProfileForm({ sub, profile, onSaved }: { sub: string; profile: UserProfile; onSaved(): void }) {
  const toast = useToast();
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
      return accountApi.updateProfile(sub, changed);
    },
    onSuccess: onSaved,
  });
  const verify = useMutation({
    mutationFn: () => accountApi.sendEmailVerification(sub),
    onSuccess: () => toast(`We sent a verification link to ${profile.email}.`),
  });
  const violation = (field: string) => (save.error instanceof ApiError ? save.error.violation(`profile.${field}`) : undefined);

  return (
    <form onSubmit={handleSubmit((values) => save.mutate(values))} noValidate>
      <ErrorMessage error={save.error} title="The profile was not saved." />
      <div className="grid-2">
        <Field label="Email address" error={violation('email')} hint={<>Status: <VerifiedBadge verified={profile.emailVerified} /></>}>
          {(p) => <TextInput {...p} type="email" autoComplete="email" {...register('email')} />}
        </Field>
        <Field label="Phone number" error={violation('phoneNumber')} hint={<>E.164, e.g. +14155550100. Status: <VerifiedBadge verified={profile.phoneNumberVerified} /></>}>
          {(p) => <TextInput {...p} type="tel" autoComplete="tel" {...register('phoneNumber')} />}
        </Field>
      </div>
      {profile.email && !profile.emailVerified ? (
        <div className="actions">
          <Button onClick={() => verify.mutate()} busy={verify.isPending}>Send a verification link to my email</Button>
        </div>
      ) : null}
      <ErrorMessage error={verify.error} />
      <div className="grid-2">
        {FIELDS.map((f) => (
          <Field key={f.name} label={f.label} hint={f.hint} error={violation(f.name)}>
            {(p) => <TextInput {...p} type={f.type ?? 'text'} autoComplete={f.autoComplete} {...register(f.name)} />}
          </Field>
        ))}
      </div>
      <fieldset>
        <legend>Address</legend>
        <div className="grid-2">
          {ADDRESS.map((f) => (
            <Field key={f.name} label={f.label} error={violation(`address.${f.name}`)}>
              {(p) => <TextInput {...p} autoComplete={f.autoComplete} {...register(`address.${f.name}`)} />}
            </Field>
          ))}
        </div>
      </fieldset>
      <div className="actions">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!formState.isDirty}>Save profile</Button>
      </div>
    </form>
  );
}
