import { describe, expect, it } from 'vitest';
import { escapeHtml, renderMarkdown, splitFrontmatter } from './markdown.js';

describe('renderMarkdown', () => {
  it('renders the parts of a SKILL.md body', () => {
    const html = renderMarkdown(
      '# Return Items\n\nLearned from **10** sessions.\n\n## Steps\n\n1. Call `find_user`.\n2. Call `get_order` with `order_id`.\n\n- edge *case*\n\n```\nraw <b>code</b>\n```\n',
    );
    expect(html).toContain('<h1>Return Items</h1>');
    expect(html).toContain('<p>Learned from <strong>10</strong> sessions.</p>');
    expect(html).toContain(
      '<ol><li>Call <code>find_user</code>.</li><li>Call <code>get_order</code> with <code>order_id</code>.</li></ol>',
    );
    expect(html).toContain('<ul><li>edge <em>case</em></li></ul>');
    expect(html).toContain('<pre><code>raw &lt;b&gt;code&lt;/b&gt;</code></pre>');
  });

  it('escapes every tag and attribute that comes from the source', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '[click](javascript:alert(1))',
      '[x](https://a.example/"onmouseover="alert(1))',
      '`<svg onload=alert(1)>`',
      '# <iframe src="//evil">',
      '1. <a href="//evil">x</a>',
    ].join('\n\n');
    const html = renderMarkdown(hostile);
    const tags = [...html.matchAll(/<([a-z0-9]+)([^>]*)>/g)];
    for (const [, tag, attrs] of tags) {
      expect(['p', 'code', 'h1', 'ol', 'li', 'a']).toContain(tag);
      if (tag === 'a')
        expect(attrs).toMatch(
          /^ href="https:\/\/a\.example\/&quot;onmouseover=&quot;alert\(1" rel="noopener noreferrer nofollow" target="_blank"$/,
        );
      else expect(attrs).toBe('');
    }
    expect(html).not.toMatch(/javascript:alert\(1\)"/);
  });

  it('moves headings down under the page headings', () => {
    expect(renderMarkdown('# Title\n\n## Steps\n\n###### Deep', { headingOffset: 2 })).toBe(
      '<h3>Title</h3>\n<h4>Steps</h4>\n<h6>Deep</h6>',
    );
  });

  it('shows images as their alt text: nothing is loaded from elsewhere', () => {
    expect(renderMarkdown('![a diagram](https://cdn.example/x.png)')).toBe('<p>a diagram</p>');
  });

  it('splits the frontmatter off', () => {
    expect(splitFrontmatter('---\nname: x\n---\n# Body\n')).toEqual({ frontmatter: 'name: x', body: '# Body\n' });
    expect(splitFrontmatter('# No frontmatter')).toEqual({ frontmatter: null, body: '# No frontmatter' });
  });

  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
