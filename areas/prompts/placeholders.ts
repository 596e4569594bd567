/**
 * Prompt placeholders: `{{variable_name}}`, the name made of letters, digits and underscores.
 * Every `{{` opens a placeholder, so a stray or broken one is reported instead of being sent to
 * a model as literal text the author did not mean.
 */
const NAME = /^[A-Za-z0-9_]+$/;
const MAX_NAME = 100;

interface PlaceholderProblem {
  /** Character offset of the `{{` that opens the malformed placeholder. */
  at: number;
  message: string;
}

export type Parsed = { ok: true; names: string[] } | { ok: false; problems: PlaceholderProblem[] };

interface Token {
  start: number;
  end: number;
  name: string;
}

function scan(content: string): { tokens: Token[]; problems: PlaceholderProblem[] } {
  const tokens: Token[] = [];
  const problems: PlaceholderProblem[] = [];
  let from = 0;
  for (let open = content.indexOf('{{', from); open !== -1; open = content.indexOf('{{', from)) {
    const close = content.indexOf('}}', open + 2);
    if (close === -1) {
      problems.push({ at: open, message: 'Placeholder "{{" is never closed with "}}"' });
      break;
    }
    const name = content.slice(open + 2, close);
    if (!NAME.test(name) || name.length > MAX_NAME) {
      problems.push({
        at: open,
        message: `Malformed placeholder at offset ${open}: names are 1-${MAX_NAME} letters, digits or underscores, as in {{variable_name}}`,
      });
    } else {
      tokens.push({ start: open, end: close + 2, name });
    }
    from = close + 2;
  }
  return { tokens, problems };
}

/** The distinct placeholder names in order of first use, or every malformed placeholder. */
export function parsePlaceholders(content: string): Parsed {
  const { tokens, problems } = scan(content);
  if (problems.length) return { ok: false, problems: problems.slice(0, 20) };
  return { ok: true, names: [...new Set(tokens.map((t) => t.name))] };
}

export type Rendered = { ok: true; text: string } | { ok: false; missing: string[] };

/**
 * Replaces each placeholder by its value in one pass over the template, so a value that itself
 * contains `{{name}}` is inserted literally and never expanded again.
 */
export function renderTemplate(content: string, variables: Readonly<Record<string, string>>): Rendered {
  const { tokens, problems } = scan(content);
  if (problems.length) throw new Error('renderTemplate called on a template with malformed placeholders');
  const missing = [...new Set(tokens.map((t) => t.name).filter((n) => !Object.hasOwn(variables, n)))];
  if (missing.length) return { ok: false, missing };
  let text = '';
  let last = 0;
  for (const t of tokens) {
    text += content.slice(last, t.start) + variables[t.name];
    last = t.end;
  }
  return { ok: true, text: text + content.slice(last) };
}
