import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button, ConfirmDialog, EmptyState, ErrorMessage, Field, Loading, Section, TextInput, useConfirmedRemoval, useToast } from '../ui';
import { isCeremonyCancelled, registerPasskey } from '../signin/flow';
import { accountApi, when, type Passkey } from './accountApi';
import { useStepUp } from './StepUp';

function RenameForm({ sub, passkey, onDone }: { sub: string; passkey: Passkey; onDone(): void }) {
  const { t } = useTranslation('account');
  const [name, setName] = useState(passkey.keyName);
  const rename = useMutation({ mutationFn: () => accountApi.renamePasskey(sub, passkey.id, name.trim()), onSuccess: onDone });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <form onSubmit={submit} className="stack">
      <ErrorMessage error={rename.error} />
      <Field label={t('passkeys.newName', { name: passkey.keyName })}>
        {(p) => <TextInput {...p} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} required />}
      </Field>
      <div className="actions">
        <Button type="submit" variant="primary" busy={rename.isPending} disabled={!name.trim()}>{t('passkeys.saveName')}</Button>
        <Button onClick={onDone}>{t('passkeys.cancel')}</Button>
      </div>
    </form>
  );
}

/** Passkeys: register one on this device, rename, remove (adding and removing need a recent sign-in). */
export function PasskeysSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const withStepUp = useStepUp();
  const client = useQueryClient();
  const key = ['account', sub, 'passkeys'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.passkeys(sub) });
  const [keyName, setKeyName] = useState('');
  const [renaming, setRenaming] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: key });

  const add = useMutation({
    mutationFn: async () => {
      try {
        // Step-up is asked at registration begin, before the browser's prompt.
        await withStepUp(() => registerPasskey(keyName.trim() || t('passkeys.defaultName')));
      } catch (e) {
        if (isCeremonyCancelled(e)) throw new Error(t('passkeys.closed'));
        throw e;
      }
    },
    onSuccess: () => {
      setKeyName('');
      toast(t('passkeys.added'));
      void refresh();
    },
  });
  const removal = useConfirmedRemoval((p: Passkey) => withStepUp(() => accountApi.deletePasskey(sub, p.id)), () => {
    toast(t('passkeys.removed'));
    void refresh();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };

  return (
    <Section title={t('parts.passkeys')} id="passkeys">
      <p className="muted">{t('passkeys.intro')}</p>
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.credentials.length === 0 ? (
        <EmptyState title={t('passkeys.none')} />
      ) : (
        <ul className="item-list" aria-label={t('passkeys.list')}>
          {list.data.credentials.map((p) => (
            <li key={p.id}>
              {renaming === p.id ? (
                <div className="item-main">
                  <RenameForm sub={sub} passkey={p} onDone={() => {
                    setRenaming(null);
                    void refresh();
                  }} />
                </div>
              ) : (
                <>
                  <div className="item-main">
                    <p>
                      <strong>{p.keyName}</strong> {p.backedUp ? <span className="badge">{t('passkeys.synced')}</span> : null}{' '}
                      {p.flagged ? <span className="badge badge-warn">{t('passkeys.blocked')}</span> : p.cloneWarning ? <span className="badge badge-warn">{t('passkeys.possiblyCopied')}</span> : null}
                    </p>
                    <p className="muted">{t('passkeys.addedUsed', { added: when(p.createdAt), used: when(p.lastUsedAt) })}</p>
                    {p.flagged ? (
                      <p className="muted">{t('passkeys.blockedSince', { since: when(p.flaggedAt) })}</p>
                    ) : null}
                  </div>
                  <div className="actions">
                    <Button onClick={() => setRenaming(p.id)} aria-label={t('passkeys.renameLabel', { name: p.keyName })}>{t('passkeys.rename')}</Button>
                    <Button variant="danger" onClick={() => removal.ask(p)} aria-label={t('passkeys.removeLabel', { name: p.keyName })}>{t('passkeys.remove')}</Button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} className="stack">
        <h3>{t('passkeys.add')}</h3>
        <ErrorMessage error={add.error} />
        <Field label={t('passkeys.name')} hint={t('passkeys.nameHint')}>
          {(p) => <TextInput {...p} value={keyName} maxLength={200} onChange={(e) => setKeyName(e.target.value)} />}
        </Field>
        <div className="actions">
          <Button type="submit" variant="primary" busy={add.isPending}>{t('passkeys.add')}</Button>
        </div>
      </form>
      <ConfirmDialog
        title={t('passkeys.removeTitle')}
        confirmLabel={t('passkeys.removeConfirm')}
        danger
        {...removal.dialog}
      >
        <p>{t('passkeys.removeBody', { name: removal.item?.keyName ?? '' })}</p>
      </ConfirmDialog>
    </Section>
  );
}
