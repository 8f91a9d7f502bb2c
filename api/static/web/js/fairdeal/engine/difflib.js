// Python's difflib.get_close_matches(word, possibilities, n=1) for names: the possibility
// nearest to a word, for "did you mean" (fairdeal/games/base.py's _nearest). Strings are
// sequences of code points, as Python's are.

import { cmpStr } from "./pytypes.js";

/** The possibility whose SequenceMatcher ratio to ``word`` is highest and at least
 * ``cutoff`` (a tie: the greater string, as Python's max of (ratio, possibility) takes),
 * or null. */
export function closeMatch(word, possibilities, cutoff = 0.6) {
  const b = Array.from(word);
  const b2j = indexOf(b);
  let best = null;
  for (const possibility of possibilities) {
    const score = ratio(Array.from(possibility), b, b2j);
    if (score < cutoff) continue;
    if (best === null || score > best.score || (score === best.score && cmpStr(possibility, best.word) > 0)) {
      best = { score, word: possibility };
    }
  }
  return best === null ? null : best.word;
}

/** SequenceMatcher's b2j: each element's indices in ``b``. (Its autojunk, which leaves
 * out the popular elements of a ``b`` of 200 or more, changes no answer here: such a word
 * is never near a name under 85 long, 2 M / T < 0.6.) */
function indexOf(b) {
  const b2j = new Map();
  b.forEach((element, j) => {
    if (!b2j.has(element)) b2j.set(element, []);
    b2j.get(element).push(j);
  });
  return b2j;
}

/** 2 M / T: M the elements of the matching blocks, T both lengths (1 when both are empty). */
function ratio(a, b, b2j) {
  const total = a.length + b.length;
  if (!total) return 1;
  let matched = 0;
  const queue = [[0, a.length, 0, b.length]];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop();
    const [i, j, k] = longestMatch(a, b, b2j, alo, ahi, blo, bhi);
    if (!k) continue;
    matched += k;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
  }
  return (2 * matched) / total;
}

/** find_longest_match with no junk: the longest block, the earliest of the longest. */
function longestMatch(a, b, b2j, alo, ahi, blo, bhi) {
  let [besti, bestj, bestsize] = [alo, blo, 0];
  let j2len = new Map();
  for (let i = alo; i < ahi; i++) {
    const next = new Map();
    for (const j of b2j.get(a[i]) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const k = (j2len.get(j - 1) ?? 0) + 1;
      next.set(j, k);
      if (k > bestsize) [besti, bestj, bestsize] = [i - k + 1, j - k + 1, k];
    }
    j2len = next;
  }
  return [besti, bestj, bestsize];
}
