import type { Principal } from '#shared/auth/access-token.ts';
import { commit, getSite, siteKey } from '#areas/content/store.ts';
import { themeOf } from '#areas/content/theme.ts';
import { config } from '#shared/platform/config.ts';
import { THEME_PRESETS, type ThemePreset } from '#shared/routes/content.ts';

export const getTheme = async (siteId: string) => themeOf((await getSite(siteId)).themeConfig);

type ThemeFields = { primaryColor?: string; secondaryColor?: string; fontFamily?: string };

/** Merges theme fields into the site's themeConfig; setting fields by hand clears the preset name. */
async function writeTheme(siteId: string, fields: ThemeFields, preset: ThemePreset | null, actor: Principal) {
  const site = await getSite(siteId);
  const now = new Date().toISOString();
  const themeConfig = { ...site.themeConfig, ...fields, preset };
  await commit(
    [
      {
        Update: {
          TableName: config.tableName,
          Key: siteKey(site.id),
          UpdateExpression: 'SET themeConfig = :theme, updatedAt = :now',
          ConditionExpression: 'updatedAt = :was',
          ExpressionAttributeValues: { ':theme': themeConfig, ':now': now, ':was': site.updatedAt },
        },
      },
    ],
    {
      actor,
      tenantId: site.tenantId,
      entityType: 'SiteTheme',
      entityId: site.id,
      action: preset ? 'preset' : 'update',
      changes: { ...fields, preset },
    },
    {},
    now,
  );
  return themeOf(themeConfig);
}

export const putTheme = (siteId: string, fields: ThemeFields, actor: Principal) =>
  writeTheme(siteId, fields, null, actor);
export const applyPreset = (siteId: string, preset: ThemePreset, actor: Principal) =>
  writeTheme(siteId, THEME_PRESETS[preset], preset, actor);
