/**
 * Shell-style file name patterns, as a data source's ignore rules use them: `*` any run of
 * characters, `?` one character, `[abc]` / `[!abc]` a set (ranges allowed), case-sensitive, the
 * whole name.
 */
const SPECIAL = /[.+^${}()|\\/]/;

export function patternToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) { out += '\\['; continue; }
      let set = pattern.slice(i + 1, end);
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      out += `[${negate ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += SPECIAL.test(c) || c === ']' ? `\\${c}` : c;
  }
  return new RegExp(`^${out}$`, 's');
}

/** Whether `name` matches one of the rules (one pattern a line; blank lines match nothing). */
export function matchesAny(name: string, rules: string): boolean {
  return rules.split(/\r?\n/).map((r) => r.trim()).filter(Boolean).some((rule) => patternToRegExp(rule).test(name));
}
