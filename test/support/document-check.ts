import { contract } from './contract.ts';
import { observeAnswers } from './invoke.ts';

/** Distinct departures kept per run: past this the list says how many more it left off. */
const MAX_LISTED = 200;

/**
 * Checks every answer `invoke` returns from now on against the API document (status listed for the
 * operation, content type listed for that status, body valid against that schema), collecting the
 * departures so a suite fails once, at its end, with all of them. The hardening suites call every
 * route with good and bad input, so between them they show where the document and the API part.
 */
export function checkAnswersAgainstDocument() {
  const departures = new Map<string, string>();
  let answers = 0;
  let leftOff = 0;
  const stop = observeAnswers((method, pathWithQuery, res) => {
    answers++;
    for (const problem of contract().violations(method, pathWithQuery, res)) {
      if (departures.has(problem)) continue;
      if (departures.size >= MAX_LISTED) {
        leftOff++;
        continue;
      }
      departures.set(problem, `${method} ${pathWithQuery.slice(0, 300)} -> ${res.text.slice(0, 300)}`);
    }
  });
  return {
    stop,
    /** How many answers were checked (a suite that checked none proves nothing). */
    answers: () => answers,
    /** Each departure once, with the first request that showed it. */
    departures: () => [
      ...[...departures].map(([problem, example]) => `${problem}\n    e.g. ${example}`),
      ...(leftOff ? [`…and ${leftOff} more`] : []),
    ],
  };
}
