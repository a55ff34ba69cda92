import type { LanguageTexts } from './mail-copy';

export const de: LanguageTexts = {
  mails: {
    invite: {
      subject: 'Ihre Einladung zu {{brandName}}',
      greeting: 'Guten Tag,',
      body: ['Sie wurden als {{email}} zu {{brandName}} eingeladen.'],
      action: { lead: 'Nehmen Sie die Einladung an und wählen Sie hier Ihr Passwort:', label: 'Einladung annehmen' },
      after: 'Der Link ist {{duration expiresInHours "hour"}} gültig. Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail.',
    },
    code: {
      subject: 'Ihr Bestätigungscode für {{brandName}}',
      greeting: 'Guten Tag {{username}},',
      body: ['Ihr Bestätigungscode lautet {{code}}.'],
      after: 'Er ist {{duration expiresInMinutes "minute"}} gültig. Wenn Sie nicht versucht haben, sich anzumelden, ignorieren Sie diese E-Mail.',
    },
    passwordReset: {
      subject: 'Ihr Passwort für {{brandName}} zurücksetzen',
      greeting: 'Guten Tag {{username}},',
      body: ['Jemand hat angefordert, das Passwort Ihres Kontos bei {{brandName}} zurückzusetzen.'],
      action: { lead: 'Wählen Sie hier ein neues:', label: 'Neues Passwort wählen' },
      after: 'Der Link ist {{duration expiresInMinutes "minute"}} gültig. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail; Ihr Passwort bleibt unverändert.',
    },
    magicLink: {
      subject: 'Bei {{brandName}} anmelden',
      greeting: 'Guten Tag {{username}},',
      body: ['Jemand hat einen Anmeldelink für Ihr Konto bei {{brandName}} angefordert.'],
      action: { lead: 'Melden Sie sich hier an:', label: 'Anmelden' },
      after: 'Der Link funktioniert einmal und ist {{duration expiresInMinutes "minute"}} gültig. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.',
    },
    emailVerification: {
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {{brandName}}',
      greeting: 'Guten Tag {{username}},',
      body: ['Bitte bestätigen Sie, dass {{email}} Ihre E-Mail-Adresse für {{brandName}} ist.'],
      action: { lead: 'Bestätigen Sie sie hier:', label: 'Adresse bestätigen' },
      after: 'Der Link ist {{duration expiresInHours "hour"}} gültig. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail.',
    },
    emailChange: {
      subject: 'Bestätigen Sie Ihre neue E-Mail-Adresse für {{brandName}}',
      greeting: 'Guten Tag {{username}},',
      body: ['Sie möchten {{email}} als Ihre E-Mail-Adresse für {{brandName}} verwenden.'],
      action: { lead: 'Bestätigen Sie sie hier:', label: 'Neue Adresse bestätigen' },
      after: 'Bis dahin bleibt Ihre bisherige Adresse in Gebrauch. Der Link ist {{duration expiresInHours "hour"}} gültig. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail.',
    },
    emailChangeNotice: {
      subject: 'Ihre Kontaktdaten bei {{brandName}} werden geändert',
      greeting: 'Guten Tag {{username}},',
      body: ['Jemand, der in Ihrem Konto bei {{brandName}} angemeldet ist, hat angefordert, Folgendes zu ändern: {{change}}.'],
      after: 'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, ändern Sie jetzt Ihr Passwort und melden Sie Ihre anderen Sitzungen auf Ihrer Kontoseite ab.',
    },
    factorAdded: {
      subject: 'Neue Anmeldemethode für Ihr Konto bei {{brandName}}',
      greeting: 'Guten Tag {{username}},',
      body: ['Ihrem Konto bei {{brandName}} wurde eine neue Anmeldemethode ({{factor}}) hinzugefügt.'],
      after: 'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, entfernen Sie sie auf Ihrer Kontoseite, ändern Sie Ihr Passwort und melden Sie Ihre anderen Sitzungen jetzt ab.',
    },
  },
  codeSms: '{{code}} ist Ihr Bestätigungscode für {{brandName}}. Er ist {{duration expiresInMinutes "minute"}} gültig.',
  supportLine: 'Fragen? Schreiben Sie an',
  words: {
    'email address': 'E-Mail-Adresse',
    'phone number': 'Telefonnummer',
    and: 'und',
    passkey: 'Passkey',
    'authenticator app': 'Authenticator-App',
    'email codes': 'Codes per E-Mail',
    'SMS codes': 'Codes per SMS',
  },
};
