import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Button, ConfirmDialog, ErrorMessage, useConfirmedRemoval, useToast } from '../../ui';
import { i18n } from '../../i18n';
import { settingsApi } from '../adminApi';
import type { SectorSettings } from '../types';

/** The theme's own colours (console/src/ui/theme.css), which a sector's empty colour keeps. */
const THEME = {
  light: { bg: '#f6f7f9', surface: '#ffffff', text: '#1b1f24', muted: '#545d68', border: '#c9d0d8', accent: '#1f5fbf', accentText: '#ffffff' },
  dark: { bg: '#111418', surface: '#1b2027', text: '#e8eaed', muted: '#a9b1bb', border: '#3d4652', accent: '#8ab4f8', accentText: '#0b1a33' },
} as const;

const HEX = /^#[0-9a-f]{6}$/i;

/** Relative luminance (WCAG) of a valid #rrggbb. */
function luminanceOf(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two valid colours. */
function contrastOf(a: string, b: string): number {
  const [hi, lo] = [luminanceOf(a), luminanceOf(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The button label the service pairs with a primary colour: white or #111111, whichever contrasts more. */
function labelOn(primary: string): string {
  return contrastOf('#ffffff', primary) >= contrastOf('#111111', primary) ? '#ffffff' : '#111111';
}

interface Pair {
  primary: string;
  background: string;
}

/** The theme's variables for one mode with the sector's colours (a colour not yet valid keeps the theme's). */
function previewStyle(mode: keyof typeof THEME, pair: Pair): CSSProperties {
  const theme = THEME[mode];
  const primary = HEX.test(pair.primary) ? pair.primary : '';
  const vars: Record<string, string> = {
    '--bg': HEX.test(pair.background) ? pair.background : theme.bg,
    '--surface': theme.surface,
    '--text': theme.text,
    '--muted': theme.muted,
    '--border': theme.border,
    '--accent': primary || theme.accent,
    '--accent-text': primary ? labelOn(primary) : theme.accentText,
    '--focus': primary || theme.accent,
  };
  return vars as CSSProperties;
}

/**
 * The sector's sign-in card as it will look, in light and dark mode, with the colours as
 * typed (before saving). Not interactive: a picture of the page, not the page.
 */
export function BrandPreview({ name, logoURL, light, dark }: { name: string; logoURL: string; light: Pair; dark: Pair }) {
  const { t } = useTranslation('settings');
  return (
    <div className="brand-previews">
      {(['light', 'dark'] as const).map((mode) => (
        <figure key={mode} className="brand-preview" style={previewStyle(mode, mode === 'light' ? light : dark)} inert>
          <figcaption>{mode === 'light' ? t('preview.light') : t('preview.dark')}</figcaption>
          <div className="brand-preview__page">
            {logoURL ? <img src={logoURL} alt="" height={24} /> : null}
            <p className="brand-preview__title">{t('preview.title', { name })}</p>
            <div className="brand-preview__card">
              <span className="brand-preview__input" />
              <span className="brand-preview__button">{t('preview.signIn')}</span>
              <span className="brand-preview__link">{t('preview.forgot')}</span>
            </div>
          </div>
        </figure>
      ))}
    </div>
  );
}

const IMAGES = [
  { asset: 'logo', url: 'BrandLogoURL' },
  { asset: 'favicon', url: 'BrandFaviconURL' },
] as const;

type ImageSpec = (typeof IMAGES)[number];

/** The file's bytes as base64 (without the data: prefix). */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error(i18n.t('settings:images.unreadable')));
    reader.readAsDataURL(file);
  });
}

function BrandImage({ sectorID, spec, url }: { sectorID: string; spec: ImageSpec; url: string }) {
  const { t } = useTranslation('settings');
  const text = (part: string) => t(`images.${spec.asset}.${part}`);
  const toast = useToast();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [error, setError] = useState<unknown>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['settings', sectorID] });
  const upload = useMutation({
    mutationFn: async (file: File) => settingsApi.uploadImage(sectorID, spec.asset, await base64Of(file)),
    onSuccess: async () => {
      setError(null);
      await refresh();
      toast(text('saved'));
    },
    onError: setError,
  });
  const removal = useConfirmedRemoval(
    () => settingsApi.removeImage(sectorID, spec.asset),
    () => {
      void refresh();
      toast(text('removed'));
    },
  );
  return (
    <div className="brand-image">
      <h4>{text('label')}</h4>
      {url ? <img className="brand-image__current" src={url} alt={text('current')} /> : <p className="muted">{t('images.none')}</p>}
      <label htmlFor={inputId}>{url ? text('replace') : text('upload')}</label>
      <input
        id={inputId}
        type="file"
        accept={spec.asset === 'favicon' ? 'image/x-icon,image/png,image/jpeg,image/webp,image/gif' : 'image/png,image/jpeg,image/webp,image/gif'}
        disabled={upload.isPending}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) upload.mutate(file);
        }}
      />
      <p className="hint">{text('hint')}</p>
      <ErrorMessage error={error} title={text('failed')} />
      {url ? <Button onClick={() => removal.ask(spec.asset)}>{text('remove')}</Button> : null}
      <ConfirmDialog title={text('removeTitle')} confirmLabel={text('removeConfirm')} danger {...removal.dialog}>
        <p>{t('images.removeBody')}</p>
      </ConfirmDialog>
    </div>
  );
}

/** The sector's logo and favicon: each saved as soon as it is chosen (not with the form). */
export function BrandImages({ sectorID, settings }: { sectorID: string; settings: SectorSettings }) {
  const { t } = useTranslation('settings');
  return (
    <div className="brand-images" role="group" aria-label={t('images.group')}>
      {IMAGES.map((spec) => (
        <BrandImage key={spec.asset} sectorID={sectorID} spec={spec} url={settings[spec.url]} />
      ))}
    </div>
  );
}
