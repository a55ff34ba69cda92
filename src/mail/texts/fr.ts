import type { LanguageTexts } from './mail-copy';

export const fr: LanguageTexts = {
  mails: {
    invite: {
      subject: 'Votre invitation à {{brandName}}',
      greeting: 'Bonjour,',
      body: ['Vous avez été invité à {{brandName}} en tant que {{email}}.'],
      action: { lead: 'Acceptez l’invitation et choisissez votre mot de passe ici :', label: 'Accepter l’invitation' },
      after: 'Le lien expire dans {{duration expiresInHours "hour"}}. Si vous n’attendiez pas cette invitation, ignorez ce message.',
    },
    code: {
      subject: 'Votre code de vérification {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Votre code de vérification est {{code}}.'],
      after: 'Il expire dans {{duration expiresInMinutes "minute"}}. Si vous n’avez pas essayé de vous connecter, ignorez ce message.',
    },
    passwordReset: {
      subject: 'Réinitialisez votre mot de passe {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Quelqu’un a demandé la réinitialisation du mot de passe de votre compte {{brandName}}.'],
      action: { lead: 'Choisissez-en un nouveau ici :', label: 'Choisir un nouveau mot de passe' },
      after: 'Le lien expire dans {{duration expiresInMinutes "minute"}}. Si vous n’êtes pas à l’origine de cette demande, ignorez ce message ; votre mot de passe reste inchangé.',
    },
    magicLink: {
      subject: 'Connexion à {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Quelqu’un a demandé un lien de connexion à votre compte {{brandName}}.'],
      action: { lead: 'Connectez-vous ici :', label: 'Se connecter' },
      after: 'Le lien ne fonctionne qu’une fois et expire dans {{duration expiresInMinutes "minute"}}. Si vous ne l’avez pas demandé, ignorez ce message.',
    },
    emailVerification: {
      subject: 'Confirmez votre adresse e-mail {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Confirmez que {{email}} est votre adresse e-mail pour {{brandName}}.'],
      action: { lead: 'Confirmez-la ici :', label: 'Confirmer l’adresse' },
      after: 'Le lien expire dans {{duration expiresInHours "hour"}}. Si vous ne l’avez pas demandé, ignorez ce message.',
    },
    emailChange: {
      subject: 'Confirmez votre nouvelle adresse e-mail {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Vous avez demandé à utiliser {{email}} comme adresse e-mail pour {{brandName}}.'],
      action: { lead: 'Confirmez-la ici :', label: 'Confirmer la nouvelle adresse' },
      after: 'D’ici là, votre ancienne adresse reste utilisée. Le lien expire dans {{duration expiresInHours "hour"}}. Si vous ne l’avez pas demandé, ignorez ce message.',
    },
    emailChangeNotice: {
      subject: 'Vos coordonnées {{brandName}} vont changer',
      greeting: 'Bonjour {{username}},',
      body: ['Une personne connectée à votre compte {{brandName}} a demandé de modifier : {{change}}.'],
      after: 'Si c’était vous, il n’y a rien à faire. Sinon, changez votre mot de passe et déconnectez vos autres sessions depuis la page de votre compte dès maintenant.',
    },
    factorAdded: {
      subject: 'Une nouvelle méthode de connexion a été ajoutée à votre compte {{brandName}}',
      greeting: 'Bonjour {{username}},',
      body: ['Une nouvelle méthode de connexion ({{factor}}) a été ajoutée à votre compte {{brandName}}.'],
      after: 'Si c’était vous, il n’y a rien à faire. Sinon, supprimez-la depuis la page de votre compte, changez votre mot de passe et déconnectez vos autres sessions dès maintenant.',
    },
  },
  codeSms: '{{code}} est votre code de vérification {{brandName}}. Il expire dans {{duration expiresInMinutes "minute"}}.',
  supportLine: 'Des questions ? Écrivez à',
  words: {
    'email address': 'adresse e-mail',
    'phone number': 'numéro de téléphone',
    and: 'et',
    passkey: 'clé d’accès',
    'authenticator app': 'application d’authentification',
    'email codes': 'codes par e-mail',
    'SMS codes': 'codes par SMS',
  },
};
