import { Trans, useTranslation } from 'react-i18next';
import { useSectorRecord } from './sectorContext';

/** The lead line of a sector screen: the sector's name and slug, when the admin may read the sector list. */
export function SectorLead({ sectorID }: { sectorID: string }) {
  const { t } = useTranslation('admin');
  const sector = useSectorRecord(sectorID);
  if (!sector) return null;
  return (
    <p className="page-lead">
      <Trans t={t} i18nKey="sectorLead" values={{ name: sector.name, slug: sector.slug }} components={{ strong: <strong /> }} />
    </p>
  );
}
