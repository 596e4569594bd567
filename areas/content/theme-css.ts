import { COLOR, FONT_FAMILY, THEME_PRESETS } from './vocabulary.ts';

export interface Theme {
  primaryColor: string;
  secondaryColor: string;
  fontFamily: string;
  preset: string | null;
}

const DEFAULT_THEME: Theme = {
  primaryColor: '#1f2937',
  secondaryColor: '#3b82f6',
  fontFamily: 'system-ui, sans-serif',
  preset: null,
};

/**
 * The theme kept in a site's themeConfig. themeConfig is free-form (site writes replace it), so
 * every value is checked again here and a value that is not a safe color or font falls back to
 * the default: nothing from it can break out of a CSS declaration.
 */
export function themeOf(themeConfig: Record<string, unknown>): Theme {
  const pick = (name: 'primaryColor' | 'secondaryColor' | 'fontFamily', pattern: RegExp) => {
    const v = themeConfig[name];
    return typeof v === 'string' && pattern.test(v) ? v : DEFAULT_THEME[name];
  };
  const preset =
    typeof themeConfig.preset === 'string' && themeConfig.preset in THEME_PRESETS ? themeConfig.preset : null;
  return {
    primaryColor: pick('primaryColor', COLOR),
    secondaryColor: pick('secondaryColor', COLOR),
    fontFamily: pick('fontFamily', FONT_FAMILY),
    preset,
  };
}

export const themeCss = (t: Theme) =>
  `:root {\n  --color-primary: ${t.primaryColor};\n  --color-secondary: ${t.secondaryColor};\n` +
  `  --font-family: ${t.fontFamily};\n}\n`;
