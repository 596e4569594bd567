import { asRead } from '#shared/data/as-read.ts';
import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, updateItem } from '#shared/data/commit.ts';
import { getSite } from '#areas/content/lookup.ts';
import { siteKey, storedJson } from '#areas/content/records.ts';
import { themeOf } from '#areas/content/theme-css.ts';
import { THEME_PRESETS, type ThemePreset } from '#areas/content/vocabulary.ts';

export const getTheme = async (siteId: string) => themeOf((await getSite(siteId)).themeConfig);

type ThemeFields = { primaryColor?: string; secondaryColor?: string; fontFamily?: string };

/** Merges theme fields into the site's themeConfig; setting fields by hand clears the preset name. */
async function writeTheme(siteId: string, fields: ThemeFields, preset: ThemePreset | null, actor: Principal) {
  const site = await getSite(siteId);
  const now = new Date().toISOString();
  const themeConfig = { ...site.themeConfig, ...fields, preset };
  await commitChange(
    [updateItem(siteKey(site.id), { themeConfig: storedJson(themeConfig), updatedAt: now }, asRead(site, 'updatedAt'))],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'SiteTheme',
      entityId: site.id,
      action: preset ? 'preset' : 'update',
      changes: { ...fields, preset },
    },
    { now },
  );
  return themeOf(themeConfig);
}

export const putTheme = (siteId: string, fields: ThemeFields, actor: Principal) =>
  writeTheme(siteId, fields, null, actor);
export const applyPreset = (siteId: string, preset: ThemePreset, actor: Principal) =>
  writeTheme(siteId, THEME_PRESETS[preset], preset, actor);
