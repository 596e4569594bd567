import { readFileSync } from 'node:fs';

/** The ```sh and ```bash blocks of a Markdown page, in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * Bash that runs the checks a page's text promises. A `curl` command whose line ends with a comment
 * that starts with a status (`# 201`, `# 404 NOT_FOUND`) is run through `expect_answer`, which fails
 * when the status, or the error code named after an error status, differs; `X=$(...)` must give a value (not empty,
 * not `null`). Everything else runs as written, under `set -euo pipefail`.
 */
export function checkedScript(block: string): string {
  const out: string[] = [];
  let command = '';
  for (const line of block.split('\n')) {
    command += (command ? '\n' : '') + line;
    if (unfinished(command)) continue;
    out.push(checked(command));
    command = '';
  }
  if (command) out.push(command);
  return out.join('\n');
}

/** True while a command goes on to the next line: an open quote or `$(`, or a trailing backslash. */
function unfinished(command: string): boolean {
  let quote = '';
  let depth = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === "'") {
      if (c === "'") quote = '';
    } else if (c === '\\') i++;
    else if (quote === '"') {
      if (c === '"') quote = '';
    } else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]!))) {
      const end = command.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '$' && command[i + 1] === '(') {
      depth++;
      i++;
    } else if (c === ')' && depth > 0) depth--;
  }
  return quote !== '' || depth > 0 || /\\\s*$/.test(command);
}

function checked(command: string): string {
  const lastLine = command.slice(command.lastIndexOf('\n') + 1);
  const promise = /\s#\s+(\d{3})\b(?:\s+([A-Z][A-Z_]+)\b)?/.exec(lastLine);
  let run = command;
  if (promise && /^\s*curl\s/.test(command))
    // Only an error answer has a code: after a 2xx status a capital word is prose ("200 CSS ...").
    run = command.replace(
      /^(\s*)curl\s/,
      `$1expect_answer ${promise[1]} '${Number(promise[1]) >= 400 ? (promise[2] ?? '') : ''}' `,
    );
  for (const [, name] of command.matchAll(/(?:^|;\s*)([A-Za-z_][A-Za-z0-9_]*)=\$\(/g)) run += `\nneed ${name}`;
  return run;
}

/** Functions the checked script calls (`curl` from the page's own address, `expect_answer`, `need`). */
export const PRELUDE = `${readFileSync(new URL('./doc-pages-prelude.sh', import.meta.url), 'utf8')}\n`;

/** A whole page as one script, its blocks in order, so variables carry from block to block. */
export function pageScript(path: string): string {
  return shellBlocks(readFileSync(path, 'utf8')).map(checkedScript).join('\n');
}

export interface PageServer {
  baseUrl: string;
  adminEmail: string;
  adminPassword: string;
  internalApiKey: string;
}

/** The pages' defaults (port 3000, the default admin, what `npm start` prints) made this server's. */
export function forServer(script: string, s: PageServer): string {
  return script
    .replaceAll('http://127.0.0.1:3000', s.baseUrl)
    .replaceAll('admin@example.com', s.adminEmail)
    .replace(/("password":")<printed at start>"/g, `$1${s.adminPassword}"`)
    .replace(/INTERNAL_API_KEY=<printed at start>/g, `INTERNAL_API_KEY='${s.internalApiKey}'`);
}

/** The shell variables a script assigns, to hand them on to the pages that use them. */
export function assigned(script: string): string[] {
  return [...new Set([...script.matchAll(/(?:^|[\s;])([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!))];
}
