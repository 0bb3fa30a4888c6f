/**
 * Label selectors as the API server reads them (labels.Parse): comma-separated requirements,
 * `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`. Returns a matcher, or throws
 * with the reason for a 400.
 */
export function parseLabelSelector(text: string): (labels: Record<string, string>) => boolean {
  const requirements: ((labels: Record<string, string>) => boolean)[] = [];
  for (const part of splitTopLevel(text)) {
    const clause = part.trim();
    if (clause === '') continue;
    let match: RegExpMatchArray | null;
    if ((match = clause.match(/^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/))) {
      const [, key, operator, list] = match as [string, string, string, string];
      const values = new Set(list.split(',').map((value) => value.trim()));
      requirements.push((labels) =>
        operator === 'in'
          ? key in labels && values.has(labels[key]!)
          : !(key in labels) || !values.has(labels[key]!),
      );
    } else if ((match = clause.match(/^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/))) {
      const [, key, operator, value] = match as [string, string, string, string];
      requirements.push((labels) =>
        operator === '!=' ? labels[key] !== value : labels[key] === value,
      );
    } else if ((match = clause.match(/^(!?)([\w./-]+)$/))) {
      const [, not, key] = match as [string, string, string];
      requirements.push((labels) => key in labels !== (not === '!'));
    } else {
      throw new Error(`unable to parse requirement: ${clause}`);
    }
  }
  return (labels) => requirements.every((requirement) => requirement(labels));
}

/** Splits on commas outside parentheses (`a in (x,y),b=c`). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < text.length; at++) {
    if (text[at] === '(') depth++;
    else if (text[at] === ')') depth--;
    else if (text[at] === ',' && depth === 0) {
      parts.push(text.slice(start, at));
      start = at + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
