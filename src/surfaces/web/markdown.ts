// A small Markdown renderer for SKILL.md bodies: headings, paragraphs, lists, code, quotes, rules, emphasis and
// links. Every piece of source text is HTML-escaped before any markup is added, so the output holds no tag or
// attribute that the source did not get from this file. Images are shown as their alt text (loading one could
// reach another host) and only http(s) links are kept.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Splits `---` YAML frontmatter from the body (the frontmatter is shown raw, never rendered). */
export function splitFrontmatter(md: string): { frontmatter: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(md);
  return m ? { frontmatter: m[1], body: md.slice(m[0].length) } : { frontmatter: null, body: md };
}

/** Inline markup on one escaped line: code spans first (their content stays literal), then the rest. */
function inline(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(
          /\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g,
          '<a href="$2" rel="noopener noreferrer nofollow" target="_blank">$1</a>',
        )
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
        .replace(/(^|[\s(])_([^_\s][^_]*)_(?=$|[\s.,;:!?)])/g, '$1<em>$2</em>');
    })
    .join('');
}

/**
 * Renders Markdown to HTML that is safe to insert (see the note at the top of this file). `headingOffset` moves
 * headings down (1: `#` becomes h2) so a rendered document nests under the page's own headings.
 */
export function renderMarkdown(md: string, opts: { headingOffset?: number } = {}): string {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: 'ol' | 'ul'; items: string[] } | null = null;

  const flushParagraph = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inline).join(' ')}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${inline(i)}</li>`).join('')}</${list.tag}>`);
    list = null;
  };
  const flush = () => {
    flushParagraph();
    flushList();
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !lines[i].trimStart().startsWith(fence[1])) code.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(6, heading[1].length + (opts.headingOffset ?? 0));
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push('<hr>');
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      flush();
      out.push(`<blockquote><p>${inline(quote[1])}</p></blockquote>`);
      continue;
    }
    const item = /^\s*(?:(\d+)[.)]|[-*+])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      const tag = item[1] ? 'ol' : 'ul';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push(item[2]);
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    // An indented line right after a list item continues that item.
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    flushList();
    paragraph.push(line.trim());
  }
  flush();
  return out.join('\n');
}
