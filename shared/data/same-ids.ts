/** The same ids, in any order: whether a stored id list (roles, groups, bases, agents) changed. */
export const sameIds = (a: readonly string[] = [], b: readonly string[] = []) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
