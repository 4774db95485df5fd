/**
 * Streamed answers for the renderer benchmark and tests: a mixed 4,000-token answer and the heavy
 * cases (a long table, a paragraph of inline formulas, a deeply nested list, a long code fence),
 * split into word-ish tokens like a BPE tokenizer would.
 */

/** Splits text into word-ish tokens (leading whitespace joined to the word). */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

const WORDS =
  'the model streams tokens while the view keeps only the open block live and every finished block stays as it was'.split(
    ' ',
  );

export function answer(tokens: number): string[] {
  const parts: string[] = [];
  const push = (s: string) => parts.push(...tokenize(s));
  for (let section = 0; parts.length < tokens; section++) {
    push(`\n\n## Section ${section}\n\n`);
    for (let i = 0; i < 30; i++) push(`${WORDS[(i + section) % WORDS.length]} `);
    push(`with math $a_${section}^2 + b^2 = c^2$ inline.\n\n`);
    push(
      `- first point about ${WORDS[section % WORDS.length]}\n- second point with **bold** text\n\n`,
    );
    push(
      '```ts\nfunction area(width: number, height: number): number {\n  return width * height;\n}\n```\n\n',
    );
    push(`$$\n\\sum_{i=1}^{${section + 2}} i = \\frac{n(n+1)}{2}\n$$\n\n`);
    push('| a | b |\n|---|---|\n| 1 | 2 |\n\n');
  }
  return parts.slice(0, tokens);
}

/** A table of `rows` × `columns` cells with some inline Markdown. */
export function tableText(rows: number, columns: number): string {
  const cols = Array.from({ length: columns }, (_, c) => c);
  const head = `| ${cols.map((c) => `Column ${c}`).join(' | ')} |\n|${cols.map(() => '---|').join('')}\n`;
  let body = '';
  for (let r = 0; r < rows; r++)
    body += `| ${cols.map((c) => (c === 1 ? `**r${r}**` : c === 2 ? `\`v${r}\`` : `cell ${r}.${c}`)).join(' | ')} |\n`;
  return `Here is the table:\n\n${head}${body}\nThat is all.\n`;
}

/** One paragraph (one line, as models write them) holding `count` inline formulas. */
export function formulasText(count: number): string {
  const parts = Array.from(
    { length: count },
    (_, i) => `term $x_{${i}}^2 + \\frac{a}{${i + 1}}$ then`,
  );
  return `Sum of the terms: ${parts.join(' ')} done.\n\nAfter.\n`;
}

/** A bullet list nested `depth` levels deep. */
export function nestedListText(depth: number): string {
  let text = 'Nested:\n\n';
  for (let i = 0; i < depth; i++) text += `${'  '.repeat(i)}- level ${i} item with *em* text\n`;
  return `${text}\nAfter.\n`;
}

/** A fenced code block of `lines` lines. */
export function codeFenceText(lines: number): string {
  let text = 'Code:\n\n```ts\n';
  for (let i = 0; i < lines; i++)
    text += `const value${i} = compute(${i}, "a<b> & c", { depth: ${i % 7} }); // line ${i}\n`;
  return `${text}\`\`\`\n\nAfter.\n`;
}
