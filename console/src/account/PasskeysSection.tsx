import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Field, Loading, Section, TextInput, useConfirmedRemoval, useToast } from '../ui';
import { isCeremonyCancelled, registerPasskey } from '../signin/flow';
import { accountApi, when, type Passkey } from './accountApi';
import { useStepUp } from './StepUp';

function RenameForm({ sub, passkey, onDone }: { sub: string; passkey: Passkey; onDone(): void }) {
  const [name, setName] = useState(passkey.keyName);
  const rename = useMutation({ mutationFn: () => accountApi.renamePasskey(sub, passkey.id, name.trim()), onSuccess: onDone });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <form onSubmit={submit} className="stack">
      <ErrorMessage error={rename.error} />
      <Field label={`New name for “${passkey.keyName}”`}>
        {(p) => <TextInput {...p} value={name} maxLength={200} onChange={(e) => setName(e.target.value)} required />}
      </Field>
      <div className="actions">
        <Button type="submit" variant="primary" busy={rename.isPending} disabled={!name.trim()}>Save name</Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/** Passkeys: register one on this device, rename, remove (adding and removing need a recent sign-in). */
export function PasskeysSection({ sub }: { sub: string }) {
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
        await withStepUp(() => registerPasskey(keyName.trim() || 'Passkey'));
      } catch (e) {
        if (isCeremonyCancelled(e)) throw new Error('The passkey prompt was closed or timed out. Nothing was saved.');
        throw e;
      }
    },
    onSuccess: () => {
      setKeyName('');
      toast('Passkey added. You can now sign in with it.');
      void refresh();
    },
  });
  const removal = useConfirmedRemoval((p: Passkey) => withStepUp(() => accountApi.deletePasskey(sub, p.id)), () => {
    toast('Passkey removed.');
    void refresh();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };

  return (
    <Section title="Passkeys" id="passkeys">
      <p className="muted">Sign in with your fingerprint, face or device PIN instead of a password.</p>
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.credentials.length === 0 ? (
        <EmptyState title="No passkeys yet" />
      ) : (
        <ul className="item-list" aria-label="Your passkeys">
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
                      <strong>{p.keyName}</strong> {p.backedUp ? <span className="badge">Synced</span> : null}{' '}
                      {p.flagged ? <span className="badge badge-warn">Blocked: possibly copied</span> : p.cloneWarning ? <span className="badge badge-warn">Possibly copied</span> : null}
                    </p>
                    <p className="muted">Added {when(p.createdAt)} · last used {when(p.lastUsedAt)}</p>
                    {p.flagged ? (
                      <p className="muted">
                        Blocked since {when(p.flaggedAt)}: it signed in with an older counter than before, as a copy would. It will not sign you in until an administrator
                        unblocks it. You can also remove it and add a new passkey.
                      </p>
                    ) : null}
                  </div>
                  <div className="actions">
                    <Button onClick={() => setRenaming(p.id)} aria-label={`Rename ${p.keyName}`}>Rename</Button>
                    <Button variant="danger" onClick={() => removal.ask(p)} aria-label={`Remove ${p.keyName}`}>Remove</Button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} className="stack">
        <h3>Add a passkey</h3>
        <ErrorMessage error={add.error} />
        <Field label="Passkey name" hint="So you can tell your passkeys apart, e.g. “Work laptop”.">
          {(p) => <TextInput {...p} value={keyName} maxLength={200} onChange={(e) => setKeyName(e.target.value)} />}
        </Field>
        <div className="actions">
          <Button type="submit" variant="primary" busy={add.isPending}>Add a passkey</Button>
        </div>
      </form>
      <ConfirmDialog
        title="Remove this passkey?"
        confirmLabel="Remove passkey"
        danger
        {...removal.dialog}
      >
        <p>“{removal.item?.keyName}” will no longer sign you in. Remove it from your device as well.</p>
      </ConfirmDialog>
    </Section>
  );
}
