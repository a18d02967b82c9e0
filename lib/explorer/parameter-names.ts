/**
 * Read the parameter names of a function from its source text, once, at discovery. A
 * destructured parameter has no name and gets `null`.
 */
export function parameterNames(fn: (...args: never[]) => unknown): (string | null)[] {
  return parameterList(fn).names;
}

/** The parameter names of a function and whether its last parameter is a rest parameter. */
export function parameterList(fn: (...args: never[]) => unknown): {
  names: (string | null)[];
  rest: boolean;
} {
  const source = Function.prototype.toString.call(fn);
  const open = source.indexOf('(');
  if (open < 0) return { names: [], rest: false };
  const params: string[] = [];
  let depth = 0;
  let current = '';
  let quote: string | null = null;
  for (let i = open + 1; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      current += c;
      if (c === '\\') current += source[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '/' && (source[i + 1] === '*' || source[i + 1] === '/')) {
      const end = source[i + 1] === '*' ? source.indexOf('*/', i + 2) : source.indexOf('\n', i + 2);
      i = end < 0 ? source.length : source[i + 1] === '*' ? end + 1 : end;
      current += ' ';
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      quote = c;
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) {
      params.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  if (current.trim()) params.push(current);
  const rest = /^\s*\.\.\./.test(
    (params[params.length - 1] ?? '').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
  );
  const names = params.map((param) => {
    const name = param
      .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      .split('=')[0]
      .replace(/^\s*\.\.\./, '')
      .trim();
    return /^[A-Za-z_$][\w$]*$/.test(name) ? name : null;
  });
  return { names, rest };
}
